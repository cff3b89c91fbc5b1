/**
 * The TypeScript compiler's messages for a snippet placed in src/domain (so its relative
 * imports resolve there), type-checked strictly against the sources: how a test pins that
 * something does not compile.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { REPO } from './cli.js';

export function compileErrors(snippet: string): string[] {
  const file = join(REPO, 'src', 'domain', '__compile_check__.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    lib: ['lib.es2023.d.ts'],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (name) => (name === file ? snippet : read(name));
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
