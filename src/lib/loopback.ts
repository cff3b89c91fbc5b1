/** Whether a host name or address (as a URL or `--host` gives it) is this machine's loopback: nothing off the machine reaches it. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
