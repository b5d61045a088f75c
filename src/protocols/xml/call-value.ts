import { setOwnProperty, type ToolDefinition, type ValuePolicy } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { type CanonicalJsonWriter, createCanonicalJsonWriter } from '../../scan/json-writer.ts';
import { readLenientJson } from '../../scan/lenient-json.ts';
import { textReading } from '../../schema/index.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../engine/call-assembler.ts';
import type { CallContext } from '../engine/call-body.ts';
import { describeProblems } from '../engine/describe-problems.ts';
import { readsAsString } from './tool-shape.ts';
import { FragmentValueSink, StringValueSink, type ValueSink } from './value-sink.ts';

/**
 * The value of one XML call as its parameters arrive, whatever tag syntax wrote them: string
 * values stream as canonical JSON while they are read; other values are held, built and coerced
 * by the schema when they close (an array parameter written as repeated tags waits for the
 * call's end to gather its elements). A parameter given twice keeps its first value and the
 * repeat is reported as a problem. The call body decides when a parameter opens and closes and
 * when the call ends; this class turns that into the call's events.
 */
export class XmlCallValue {
  private readonly assembler: CallAssembler;
  private readonly writer: CanonicalJsonWriter;
  private objectStarted = false;
  private readonly input: Record<string, unknown> = {};
  private readonly given = new Set<string>();
  private readonly held = new Map<string, unknown[]>();
  /**
   * The decoded text of the string value streaming now, while the call's strings are small
   * enough to keep: the input is then at hand when the call closes. Past the limit the input is
   * read back from the streamed JSON instead, so a large argument is not kept twice.
   */
  private keptString = '';
  private keepsStrings = true;
  private keptChars = 0;
  /** Made on the first string value and reset for each one after. */
  private stringSink: StringValueSink | undefined;
  private heldSink: FragmentValueSink | undefined;
  private sink: ValueSink | undefined;
  /** The parameter whose value is open, if any. */
  private openName: string | undefined;

  /** Why a value nests too deep to be read: the call is reported when it ends. */
  private tooDeep = '';
  /** Why JSON arguments could not be read: the call is reported as malformed when it ends. */
  private jsonFailure = '';
  private jsonFailureCode: 'malformed-call' | 'too-deep' = 'malformed-call';

  private readonly context: CallContext;
  private readonly tool: ToolDefinition;
  private readonly policy: ValuePolicy;

  constructor(context: CallContext, tool: ToolDefinition, policy: ValuePolicy) {
    this.context = context;
    this.tool = tool;
    this.policy = policy;
    this.assembler = new CallAssembler(context, tool);
    this.writer = createCanonicalJsonWriter(this.assembler.delta);
  }

  /** Whether any parameter was given (opened, or taken whole). */
  get hasParameters(): boolean {
    return this.given.size > 0;
  }

  /** The parameter whose value is open, if any. */
  get parameter(): string | undefined {
    return this.openName;
  }

  /** The call's id once its events have begun (a fault about the call then names it). */
  get startedCallId(): string | undefined {
    return this.assembler.hasStarted ? this.assembler.toolCallId : undefined;
  }

  /** Opens the value of `name`: the returned sink takes its pieces until `closeValue`. */
  openParameter(name: string): ValueSink {
    const policy = this.policy.property(name);
    this.openName = name;
    const firstTime = !this.given.has(name);
    this.given.add(name);
    if (firstTime && readsAsString(policy)) {
      this.startObject();
      this.writer.key(name);
      this.writer.startString();
      this.heldSink = undefined;
      this.keptString = '';
      if (this.stringSink === undefined) {
        this.stringSink = new StringValueSink((piece) => this.streamStringPiece(piece));
      } else {
        this.stringSink.reset();
      }
      this.sink = this.stringSink;
    } else {
      // A repeated array parameter gathers its elements; anything else keeps its first value.
      if (!firstTime && !this.held.has(name)) this.addDuplicate(name);
      this.heldSink = new FragmentValueSink(this.context.options.maxDepth);
      this.sink = this.heldSink;
    }
    return this.sink;
  }

  /** Ends the open value: a string's JSON is closed, a held value is built and coerced. */
  closeValue(): void {
    const name = this.openName!;
    this.sink!.end();
    if (this.heldSink?.tooDeep) {
      this.tooDeep = `the value of "${name}" nests elements deeper than maxDepth (${this.context.options.maxDepth})`;
    } else if (this.heldSink) {
      const value = this.heldSink.result();
      const list = this.held.get(name);
      const policy = this.policy.property(name);
      if (list) list.push(value);
      else if (policy.streams('array')) {
        // An array may be written as repeated tags: wait for the call's end to gather them.
        this.held.set(name, [value]);
      } else if (!Object.hasOwn(this.input, name)) {
        // (A repeat of a value already written is dropped; its duplicate problem is recorded.)
        // Text is typed by the one rule for values written as text (unions included).
        this.writeHeldValue(
          name,
          typeof value === 'string' ? textReading(policy).type(value) : policy.coerce(value),
        );
      }
    } else {
      this.writer.endString();
      // Set even when strings are no longer kept: a repeat of the parameter must find it given.
      setOwnProperty(this.input, name, this.keptString);
      this.keptString = '';
    }
    this.sink = undefined;
    this.heldSink = undefined;
    this.openName = undefined;
  }

  /**
   * A value given whole rather than streamed (an attribute, a member of JSON arguments),
   * coerced by the schema; a repeat of a parameter already given is dropped and reported.
   */
  takeWhole(name: string, value: unknown): void {
    if (this.given.has(name)) {
      this.addDuplicate(name);
      return;
    }
    this.given.add(name);
    this.writeHeldValue(name, this.policy.property(name).coerce(value));
  }

  /**
   * The text of a JSON object written in the tool tag: read whole (repaired if need be), its
   * members become the parameters. Unreadable text is reported when the call ends.
   */
  takeJsonArguments(json: string): void {
    const read = readLenientJson(json, { maxDepth: this.context.options.maxDepth });
    if (!read.ok) {
      this.jsonFailure = `the arguments written in the "${this.tool.name}" tag are not readable JSON: ${read.message}`;
      this.jsonFailureCode = read.reason === 'too-deep' ? 'too-deep' : 'malformed-call';
      return;
    }
    const value = read.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.jsonFailure = `the arguments written in the "${this.tool.name}" tag are not a JSON object`;
      return;
    }
    for (const [name, member] of Object.entries(value)) this.takeWhole(name, member);
  }

  private streamStringPiece(piece: string): void {
    this.writer.stringChunk(piece);
    if (!this.keepsStrings) return;
    this.keptChars += piece.length;
    if (this.keptChars > MAX_KEPT_ARGUMENT_CHARS) {
      this.keepsStrings = false;
      this.keptString = '';
    } else {
      this.keptString += piece;
    }
  }

  /** Writes a whole (coerced) value into the input. */
  private writeHeldValue(name: string, value: unknown): void {
    this.startObject();
    this.writer.key(name);
    this.writer.value(value);
    setOwnProperty(this.input, name, value);
  }

  private addDuplicate(name: string): void {
    this.assembler.addProblem({
      path: `/${name}`,
      keyword: 'duplicate',
      message: `parameter "${name}" was given more than once; only the first value was used`,
    });
  }

  // ── the call ──────────────────────────────────────────────────────────────────────────────

  private startObject(): void {
    if (this.objectStarted) return;
    this.objectStarted = true;
    this.writer.startObject();
  }

  /** Coerces the held values into the input (in order of first appearance). */
  private assembleHeld(): void {
    for (const [name, values] of this.held) {
      const policy = this.policy.property(name);
      // Only array parameters are held to the end: repeated tags are its elements.
      const value = values.length > 1 ? values : values[0];
      setOwnProperty(this.input, name, policy.coerce(value));
    }
  }

  private emitHeldAndClose(): void {
    this.startObject();
    for (const name of this.held.keys()) {
      this.writer.key(name);
      this.writer.value(this.input[name]);
    }
    this.writer.endObject();
  }

  /** The call's closing markup arrived (every value closed): the call completes. */
  complete(): void {
    if (this.reportUnreadable()) return;
    this.assembleHeld();
    const value = this.valueSoFar();
    this.emitHeldAndClose();
    this.assembler.complete(value);
  }

  /** The call cannot be run. */
  fail(code: 'incomplete-call', message: string): void {
    this.assembler.fail(code, message);
  }

  /**
   * The output ended with every value closed and only the call's own closing markup missing:
   * no parameter means no call; cut off, or missing what the schema requires, it is not run;
   * otherwise it completes.
   */
  finishUnclosed(interrupted: boolean): void {
    if (this.reportUnreadable()) return;
    if (this.given.size === 0) {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (interrupted) {
      this.assembler.fail(
        'incomplete-call',
        `the output was cut off before the call to "${this.tool.name}" was closed; the call was not run`,
      );
      return;
    }
    this.assembleHeld();
    const value = this.valueSoFar();
    const problems = this.assembler.problemsFor(value);
    if (problems.length > 0) {
      this.assembler.fail(
        'incomplete-call',
        `the output ended inside a call to "${this.tool.name}" that is not complete: ${describeProblems(problems)}`,
      );
      return;
    }
    this.emitHeldAndClose();
    this.assembler.complete(value, problems);
  }

  /** A value nested too deep, or JSON arguments that could not be read: the call is reported. */
  private reportUnreadable(): boolean {
    if (this.tooDeep !== '') this.assembler.fail('too-deep', this.tooDeep);
    else if (this.jsonFailure !== '') this.assembler.fail(this.jsonFailureCode, this.jsonFailure);
    else return false;
    return true;
  }

  /**
   * The input as it stands with every value closed and the held arrays assembled: the values
   * kept, or, once strings were too long to keep, what was written (the streamed text is
   * canonical JSON, so it parses back to the values) plus the held arrays.
   */
  private valueSoFar(): Record<string, unknown> {
    if (this.keepsStrings) return this.input;
    const value: Record<string, unknown> = this.objectStarted
      ? (parseJsonText(`${this.assembler.inputText()}}`) as Record<string, unknown>)
      : {};
    for (const name of this.held.keys()) setOwnProperty(value, name, this.input[name]);
    return value;
  }

  /** The call was abandoned: its events end here. */
  end(): void {
    this.assembler.end();
  }
}
