/**
 * A service on https:// with a certificate this machine does not trust (self-signed, or from a
 * private authority): premia says so in one line and how to trust it, and the way it names
 * (NODE_EXTRA_CA_CERTS, read as the process starts: hence real child processes) works.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { premiaBin } from './spawn.js';

let dir: string;
let cleanup: () => void;
let server: Server;
let url: string;
let requests = 0;
const KEY = 'pk_test_tls_0123456789abcdef0123456789abcdef';

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('premia-tls-'));
  // A self-signed certificate for 127.0.0.1, made here (no key kept in the repository).
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { cwd: dir, stdio: 'ignore' },
  );
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
    requests++;
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"UNAUTHORIZED","message":"unknown key"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  cleanup();
});

describe('a service whose TLS certificate this machine does not trust', () => {
  it('is refused in one line that says how to trust it, nothing sent', async () => {
    const env = { PREMIA_BASE_URL: url, PREMIA_API_KEY: KEY, NODE_EXTRA_CA_CERTS: '' };
    const r = await premiaBin(['whoami'], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: Cannot talk to the service at ${url}: the service's TLS certificate is self-signed; to trust it, name a PEM file holding it in NODE_EXTRA_CA_CERTS.\n  (code REMOTE_ERROR)\n`,
    );
    expect(requests).toBe(0);
  });

  it('is trusted once NODE_EXTRA_CA_CERTS names its certificate: the request reaches the service', async () => {
    const env = { PREMIA_BASE_URL: url, PREMIA_API_KEY: KEY, NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') };
    const r = await premiaBin(['whoami'], { cwd: dir, env });
    expect(requests).toBe(1);
    // The service's own refusal of the key, not the certificate's.
    expect(r.stderr).toBe(
      `error: The service at ${url} refused the API key (the service said: unknown key). The key comes from PREMIA_API_KEY: set it to a valid key (it was not revoked?), or unset it and run 'premia login'.\n  (code UNAUTHORIZED)\n`,
    );
    expect(r.code).toBe(4);
  });
});
