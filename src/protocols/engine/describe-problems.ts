import type { ValidationProblem } from '../../core/index.ts';

/** One line naming every problem, for error messages. */
export function describeProblems(problems: readonly ValidationProblem[]): string {
  return problems.map((problem) => problem.message).join('; ');
}
