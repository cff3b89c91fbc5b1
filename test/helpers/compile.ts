/**
 * The TypeScript compiler's messages for a snippet placed in src/domain (so its relative
 * imports resolve there), type-checked strictly against the sources: how a test pins that
 * something does not compile.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { REPO } from './cli.js';

/** Parsed library and source files, shared by the compilations of one test file (parsing lib.d.ts is most of the cost). */
const parsed = new Map<string, ts.SourceFile | undefined>();

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
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError) => {
    if (name === file) return getSourceFile(name, version, onError);
    if (!parsed.has(name)) parsed.set(name, getSourceFile(name, version, onError));
    return parsed.get(name);
  };
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
