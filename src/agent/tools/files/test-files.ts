/**
 * Which files are tests, for `search`'s `allow_tests` (Probe names the parameter but not the
 * rule). A file is a test when a folder on its path (relative to the root) is named like a test
 * folder, or its name follows a test-file convention of a common language.
 */

const TEST_FOLDERS = new Set([
  'test',
  'tests',
  '__tests__',
  '__mocks__',
  'spec',
  'specs',
  'testdata',
]);

const TEST_FILE_NAMES: readonly RegExp[] = [
  /\.(?:test|spec)\.[^/]+$/, // JavaScript/TypeScript: login.test.ts, login.spec.js, x.test.d.ts
  /_(?:test|spec)\.[^./]+$/, // Go, Python, C++, Ruby: login_test.go, login_spec.rb
  /^test_[^/]*\.py$/, // Python: test_login.py
  /^conftest\.py$/, // pytest fixtures
  /[a-z0-9]Tests?\.(?:java|kt|kts|scala|groovy|cs|php|swift)$/, // JVM, .NET, PHP: LoginTest.java
];

/** Whether the file at `rel` (relative to the root, `/`-separated) is a test file. */
export function isTestFile(rel: string): boolean {
  const parts = rel.split('/');
  const name = parts.pop() ?? '';
  if (parts.some((folder) => TEST_FOLDERS.has(folder))) return true;
  return TEST_FILE_NAMES.some((pattern) => pattern.test(name));
}

/** The rule in words, for tool descriptions. */
export const TEST_FILE_RULE =
  'test files are files under a folder named test, tests, __tests__, __mocks__, spec, specs or ' +
  'testdata, and files named *.test.*, *.spec.*, *_test.*, *_spec.*, test_*.py, conftest.py or ' +
  '*Test.java (and *Tests, in JVM, .NET, PHP and Swift languages)';
