import { resolveInRoot, shown } from '../files/confine.ts';
import { compileGlob } from '../files/glob.ts';
import { newWalkReport, walkFiles } from '../files/walk.ts';
import { optionalString, readInput } from '../input.ts';
import { CappedOutput } from '../output/capped-output.ts';
import { byCodeUnits, sortPaced } from '../paced-sort.ts';
import { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import type { CodeTool, CodeToolExecuteOptions } from '../types.ts';

const PARAMETERS = ['path', 'glob'] as const;

export function listFilesTool(settings: Settings): CodeTool {
  return {
    name: 'list_files',
    description:
      'Lists the files under a folder (recursively, sorted, paths relative to the root), ' +
      'skipping files excluded by .gitignore. Filter with a glob such as "*.ts" or "src/**/*.py".',
    inputSchema: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'Folder to list, relative to the root (default: the whole root).',
        },
        glob: {
          type: 'string',
          description:
            'Only files matching this glob: * and ? within a name, ** across folders, {a,b} ' +
            'alternatives, [abc] and [!abc] sets, \\ before a character to take it as it is. ' +
            'Without a "/" it matches file names at any depth ("*.ts"); ' +
            'with one, the path relative to the listed folder or to the root ("src/**/*.ts").',
        },
      },
      required: [],
      additionalProperties: false,
    },
    execute: (input, options) => runListFiles(settings, input, options),
  };
}

async function runListFiles(
  settings: Settings,
  raw: unknown,
  options: CodeToolExecuteOptions = {},
): Promise<string> {
  const pacer = new Pacer(options.signal);
  const input = readInput('list_files', raw, PARAMETERS);
  const path = optionalString('list_files', input, 'path');
  const glob = optionalString('list_files', input, 'glob');
  const matches =
    glob === undefined
      ? undefined
      : compileGlob(glob, 'glob', {
          maxChars: settings.maxGlobChars,
          maxBraceDepth: settings.maxGlobBraceDepth,
        });
  const start = await resolveInRoot(settings, path, 'path');
  if (start.kind === 'file') return `${start.rel}\n(1 file: path names a file)`;

  const prefix = start.rel === '' ? '' : `${start.rel}/`;
  const report = newWalkReport();
  let found: string[] = [];
  for await (const file of walkFiles(settings, start, report, pacer)) {
    if (matches !== undefined) {
      const inFolder = file.rel.startsWith(prefix) ? file.rel.slice(prefix.length) : file.rel;
      if (!matches(inFolder) && !matches(file.rel)) continue;
    }
    found.push(file.rel);
  }
  found = await sortPaced(found, byCodeUnits, pacer);

  const where = shown(start.rel);
  const filter = glob === undefined ? '' : ` matching ${JSON.stringify(glob)}`;
  const listed = found.slice(0, settings.maxListedFiles);
  const header = [
    found.length === 0
      ? `No files${filter} under ${where}.`
      : `${found.length} file${found.length === 1 ? '' : 's'}${filter} under ${where}` +
        (listed.length < found.length ? ` (the first ${listed.length} are listed):` : ':'),
  ];
  if (report.startIgnored) header.push(`Note: ${where} is excluded by a .gitignore file.`);
  if (report.stoppedAtLimit) {
    header.push(`Note: stopped after ${report.filesVisited} files; give a narrower path.`);
  }
  if (report.linksOutside > 0) {
    header.push(`Note: ${report.linksOutside} symlinks leading outside the root skipped.`);
  }
  const output = new CappedOutput(settings.maxOutputChars);
  output.add(header.join('\n'));
  let count = 0;
  for (const rel of listed) {
    if (!output.add(rel)) break;
    count += 1;
  }
  if (count < found.length) output.markCut(count < listed.length);
  return output.finish(
    `Listed ${count} of ${found.length} files. Narrow the list with a path (a subfolder) or a ` +
      'glob such as "*.ts".',
  );
}
