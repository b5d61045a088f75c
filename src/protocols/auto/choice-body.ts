import { isMarkupSpace } from '../../scan/characters.ts';
import { isNameDelimiter } from '../../scan/opener-trie.ts';
import type {
  CallBody,
  CallContext,
  CallOutcome,
  ResolvedParseOptions,
} from '../engine/call-body.ts';
import { ForwardingContext } from '../engine/forwarding-context.ts';
import type { ProtocolGrammar } from '../engine/stream-engine.ts';
import { FirstCommits, MAX_PREFIX_CHARS, POSSIBLE } from './first-commits.ts';

/** One format's reading of an opener that several formats share (or that begins theirs). */
export interface Candidate {
  readonly grammar: ProtocolGrammar<unknown>;
  readonly data: unknown;
  /** What of the format's own opener is still to come after the shared literal. */
  readonly rest: string;
  /**
   * The end of the shared literal past the format's own, shorter opener (`name=` of MiniCPM's
   * `<function name=` for hermes's `<function `): the format's body reads it first.
   */
  readonly lead?: string;
  /** The format's opener is a tag-name prefix: a delimiter must follow `rest`. */
  readonly delimited: boolean;
  /** Precedence: a lower order wins when two formats commit at the same character. */
  readonly order: number;
  /** The characters the format's call can start with after white space (CallOpener.callStarts). */
  readonly callStarts?: string;
}

/**
 * Whether the call's first character past white space in `text[start, end)`, if there, is one
 * the candidate's calls cannot start with.
 */
function startsOtherwise(candidate: Candidate, text: string, start: number, end: number): boolean {
  const { callStarts } = candidate;
  if (callStarts === undefined) return false;
  let index = start;
  while (index < end && isMarkupSpace(text.charCodeAt(index))) index++;
  return index < end && !callStarts.includes(text.charAt(index));
}

/**
 * The candidates of one opener, sorted for a cheap start: most formats' longer openers fail on
 * the first character after the shared one, so they are looked at only when it matches.
 */
export interface CandidateGroup {
  /** The shared literal the engine matched. */
  readonly literal: string;
  /** Openers that are exactly the shared literal: their bodies open at once. */
  readonly ready: readonly Candidate[];
  /** Longer openers, by the first character still to come. */
  readonly byNextCode: ReadonlyMap<number, readonly Candidate[]>;
  /** Tag-name openers that are the literal itself and wait for a delimiter. */
  readonly delimited: readonly Candidate[];
  /** Every candidate, in precedence order. */
  readonly all: readonly Candidate[];
  /** The longest `rest` among the candidates (0 when every one is the literal itself). */
  readonly longestRest: number;
  /** Every beginning of every candidate's `rest`: text still inside a longer opener. */
  readonly restPrefixes: ReadonlySet<string>;
  /**
   * The formats still reading after each telling start (see `tellingEnd`), worked out once per
   * start and tool list: empty when no decision can be made that early.
   */
  readonly decisions: Map<string, readonly Candidate[]>;
  /**
   * After a telling start that leaves several formats reading: the beginnings of calls on which
   * one of them committed first, each with that format.
   */
  readonly firstCommits: FirstCommits<Candidate>;
}

/** A group of candidates with what is derived from them. */
export function candidateGroup(
  literal: string,
  ready: readonly Candidate[],
  byNextCode: ReadonlyMap<number, readonly Candidate[]>,
  delimited: readonly Candidate[],
): CandidateGroup {
  const all = [...ready, ...delimited, ...[...byNextCode.values()].flat()].sort(
    (a, b) => a.order - b.order,
  );
  const restPrefixes = new Set<string>();
  for (const { rest } of all) {
    for (let length = 1; length <= rest.length; length++) restPrefixes.add(rest.slice(0, length));
  }
  return {
    literal,
    ready,
    byNextCode,
    delimited,
    all,
    longestRest: Math.max(0, ...all.map((candidate) => candidate.rest.length)),
    restPrefixes,
    decisions: new Map(),
    firstCommits: new FirstCommits(),
  };
}

/**
 * Where the start of a call tells the formats apart: past every longer opener still matching,
 * past white space, one character more (`\n{` after `<tool_call>`, `>[` after `<tool_calls`).
 * Longer than this, a start decides nothing in advance.
 */
const MAX_TELLING_START = 16;
/** Distinct telling starts kept per group; the rest are worked out each time. */
const MAX_DECISIONS = 256;
/**
 * While no format has committed, the formats read a write in slices of growing size: one that
 * commits early stops the others from reading a whole call they would give up on at its end.
 */
const FIRST_SLICE = 32;

/** What a probe shows its body: the call's text so far, and the options with throwaway ids. */
interface ProbeSource {
  readonly probeOptions: ResolvedParseOptions;
  readonly probeCallLength: number;
  probeCallText(start: number, end: number): string;
}

/**
 * The context a probe's body writes to: nothing goes out, it only notes whether the body said
 * something only its format would (an event, a fault: a commitment) and how it settled. Text a
 * body hands back is no commitment: every format hands back text it does not read.
 */
class ProbeContext implements CallContext {
  committed = false;
  outcome: CallOutcome | undefined;
  private readonly source: ProbeSource;

  constructor(source: ProbeSource) {
    this.source = source;
  }

  get options(): ResolvedParseOptions {
    return this.source.probeOptions;
  }

  get callLength(): number {
    return this.source.probeCallLength;
  }

  callText(start: number, end: number = this.callLength): string {
    return this.source.probeCallText(start, end);
  }

  emit(): void {
    this.committed = true;
  }

  inputDelta(): void {
    this.committed = true;
  }

  emitText(): void {}

  reportFault(): void {
    this.committed = true;
  }

  settle(outcome: CallOutcome): void {
    this.outcome = outcome;
  }
}

/** The chosen format's body: the engine's context, with the part of the call not yet fed held back. */
class AdoptedContext extends ForwardingContext {
  unfed = 0;

  override get callLength(): number {
    return this.real.callLength - this.unfed;
  }
}

/** Probe ids: a probe's events never go out, and the parser's own ids stay in step. */
const probeOptionsOf = new WeakMap<ResolvedParseOptions, ResolvedParseOptions>();

function probeOptions(options: ResolvedParseOptions): ResolvedParseOptions {
  let probe = probeOptionsOf.get(options);
  if (probe === undefined) {
    let next = 0;
    probe = { ...options, generateId: () => `probe-${next++}` };
    probeOptionsOf.set(options, probe);
  }
  return probe;
}

/** A probe of a telling start alone: the opener's literal and the start are the whole call. */
class StartSource implements ProbeSource {
  readonly probeOptions: ResolvedParseOptions;
  /** The call's length as the body sees it: its opener when it opens, all of it when it reads. */
  probeCallLength: number;
  private readonly text: string;

  constructor(text: string, options: ResolvedParseOptions) {
    this.text = text;
    this.probeOptions = options;
    this.probeCallLength = text.length;
  }

  probeCallText(start: number, end: number): string {
    return this.text.slice(start, end);
  }
}

type StartVerdict = 'reading' | 'gave-up' | 'undecided';

/** A verdict, with the body that read on (to tell whether another format's covers it). */
interface Probed {
  readonly verdict: StartVerdict;
  readonly body?: CallBody;
}

const GAVE_UP: Probed = { verdict: 'gave-up' };
const UNDECIDED: Probed = { verdict: 'undecided' };
const READING: Probed = { verdict: 'reading' };

/** How one format reads a call that starts with `start` after the shared literal. */
function verdictOn(
  candidate: Candidate,
  literal: string,
  start: string,
  options: ResolvedParseOptions,
): Probed {
  const { rest } = candidate;
  let index = 0;
  for (; index < rest.length; index++) {
    if (index >= start.length) return READING;
    if (start.charCodeAt(index) !== rest.charCodeAt(index)) return GAVE_UP;
  }
  if (candidate.delimited) {
    if (index >= start.length) return READING;
    if (!isNameDelimiter(start.charCodeAt(index))) return GAVE_UP;
  }
  const lead = candidate.lead ?? '';
  // A lead counts as the call's start.
  const call = lead + start.slice(index);
  if (startsOtherwise(candidate, call, 0, call.length)) return GAVE_UP;
  const source = new StartSource(literal + start, options);
  const context = new ProbeContext(source);
  source.probeCallLength = literal.length - lead.length + index;
  const body = candidate.grammar.openCall(candidate.data, context);
  if (lead.length > 0) {
    source.probeCallLength = literal.length;
    if (body.write(lead, 0, lead.length) !== -1 || context.committed) return UNDECIDED;
  }
  source.probeCallLength = literal.length + start.length;
  const stop = index < start.length ? body.write(start, index, start.length) : -1;
  if (stop !== -1)
    return (context.outcome?.kind ?? 'not-a-call') === 'not-a-call' ? GAVE_UP : UNDECIDED;
  return context.committed ? UNDECIDED : { verdict: 'reading', body };
}

/**
 * Whether the format of `candidate` reads on through its lead (the end of `literal` past its
 * own shorter opener), neither giving up nor committing in it.
 */
export function readsLead(
  candidate: Candidate,
  literal: string,
  options: ResolvedParseOptions,
): boolean {
  const lead = candidate.lead ?? '';
  if (lead.length === 0) return true;
  if (startsOtherwise(candidate, lead, 0, lead.length)) return false;
  const source = new StartSource(literal, probeOptions(options));
  const context = new ProbeContext(source);
  source.probeCallLength = literal.length - lead.length;
  const body = candidate.grammar.openCall(candidate.data, context);
  source.probeCallLength = literal.length;
  return body.write(lead, 0, lead.length) === -1 && !context.committed;
}

/**
 * The formats that read on after a telling start, in precedence order; empty when the start
 * decides nothing (a format committed or ended in it, or none reads on).
 */
function decisionFor(
  group: CandidateGroup,
  start: string,
  options: ResolvedParseOptions,
): readonly Candidate[] {
  const known = group.decisions.get(start);
  if (known) return known;
  let reading: Candidate[] = [];
  const bodies: (CallBody | undefined)[] = [];
  for (const candidate of group.all) {
    const { verdict, body } = verdictOn(candidate, group.literal, start, options);
    if (verdict === 'undecided') {
      reading = [];
      break;
    }
    if (verdict !== 'reading') continue;
    // A format whose body an earlier one's covers can never be chosen over it.
    if (body && bodies.some((earlier) => earlier?.covers?.(body) === true)) continue;
    reading.push(candidate);
    bodies.push(body);
  }
  if (group.decisions.size < MAX_DECISIONS) group.decisions.set(start, reading);
  return reading;
}

interface Trial {
  readonly candidate: Candidate;
  readonly context: ProbeContext;
  /** Characters of `candidate.rest` matched so far. */
  gate: number;
  body: CallBody | undefined;
  /** Where the body ended its call (an index in the write that ended it), or -1. */
  stop: number;
  /** Not this format's call: where its text goes on (an index in the write that showed it). */
  droppedAt: number;
  /** The call's first character past white space has been seen (see Candidate.callStarts). */
  started: boolean;
}

/** The trial said what only its format would: an event, a call, or framing it dropped. */
function committedTo(trial: Trial): boolean {
  if (trial.context.committed) return true;
  const kind = trial.context.outcome?.kind;
  return trial.stop !== -1 && (kind === 'call' || kind === 'markup');
}

/**
 * Reads a call whose opener several formats share (`<tool_call>`: JSON in Hermes, `<function=…>`
 * in Qwen3-Coder, a bare name in GLM), or whose opener begins a longer one (`[` and
 * `[TOOL_CALLS]`).
 *
 * Most calls are told apart by how they start: the characters after the opener, up to the first
 * one past white space, leave one format reading (`<tool_calls>[` is a JSON list, `<tool_calls>{`
 * JSON lines). Which formats read on after such a start is worked out once per start (and tool
 * list), and when it is one, its body reads the call straight away.
 *
 * Otherwise each format's body reads on as a probe, until one of them commits: it names a
 * declared tool, streams input, or ends a call. The earliest commit is the reading; a tie goes to
 * the format first in precedence; a fault stands only once every other format gave up. Each
 * write is read by every probe at once, in slices of growing size; when exactly one commits in a
 * slice, that one committed first, so the choice does not depend on chunking. When several
 * commit in the same slice, it is read again one character at a time by fresh probes, to find
 * which committed first. The chosen format's body then reads the call from its start, as if it
 * had been named: probes never emit, so no event is held and released, and the chosen body keeps
 * its whole-call fast path.
 */
export class ChoiceBody implements CallBody, ProbeSource {
  /** Characters of the current write past what a probe is being fed (see ProbeContext). */
  unfed = 0;

  private trials: Trial[] = [];
  /** The chosen format's body, reading with the engine's context. */
  private adopted: CallBody | undefined;
  /** The format whose text goes on when every format gave up (its leftover is handed back). */
  private lastDropped: Trial | undefined;
  /** Trials that ended with a fault, waiting in case every other format gives up. */
  private readonly parked: Trial[] = [];
  /** A probe decided on while reading one character at a time. */
  private pick: Trial | undefined;
  private started = false;
  /**
   * The telling start whose decision left the formats now reading (several of them), while no
   * format has committed: where the first to commit is kept (see FirstCommits).
   */
  private tellingStart: string | undefined;
  /**
   * The formats the telling start left reading, not yet probed: while the call so far begins
   * one on which a format committed first (see FirstCommits), nothing is read but by the engine.
   */
  private held: readonly Candidate[] | undefined;
  /** The call's length when the opener matched: where the formats' text begins. */
  private readonly bodyStart: number;
  private readonly group: CandidateGroup;
  private readonly context: CallContext;

  constructor(group: CandidateGroup, context: CallContext) {
    this.context = context;
    this.group = group;
    this.bodyStart = context.callLength;
  }

  get probeOptions(): ResolvedParseOptions {
    return probeOptions(this.context.options);
  }

  get probeCallLength(): number {
    return this.context.callLength - this.unfed;
  }

  probeCallText(start: number, end: number): string {
    return this.context.callText(start, end);
  }

  get leftover(): string | undefined {
    return (this.adopted ?? this.lastDropped?.body)?.leftover;
  }

  /** A probe of `candidate`, or undefined when its body gives up on its lead (see Candidate). */
  private trialOf(candidate: Candidate): Trial | undefined {
    const trial: Trial = {
      candidate,
      context: new ProbeContext(this),
      gate: 0,
      body: undefined,
      stop: -1,
      droppedAt: -1,
      started: candidate.callStarts === undefined,
    };
    // A probe opened here starts where the formats' text begins, or its lead.
    const unfed = this.unfed;
    const lead = candidate.lead ?? '';
    this.unfed = this.context.callLength - this.bodyStart + lead.length;
    if (candidate.rest.length === 0 && !candidate.delimited) {
      trial.body = candidate.grammar.openCall(candidate.data, trial.context);
    }
    let readsLead = true;
    if (lead.length > 0 && !trial.started) {
      if (startsOtherwise(candidate, lead, 0, lead.length)) readsLead = false;
      else if (lead.trim().length > 0) trial.started = true;
    }
    if (readsLead && lead.length > 0 && trial.body) {
      this.unfed = this.context.callLength - this.bodyStart;
      readsLead = trial.body.write(lead, 0, lead.length) === -1 && !trial.context.committed;
    }
    this.unfed = unfed;
    return readsLead ? trial : undefined;
  }

  /**
   * A format whose body reads the same as an earlier one's (a JSON shape with fewer keys) can
   * never be chosen over it: only the earlier one reads.
   */
  private withoutCovered(trials: readonly Trial[]): Trial[] {
    return trials.filter(
      (trial, index) =>
        trial.body === undefined ||
        !trials.slice(0, index).some((earlier) => earlier.body?.covers?.(trial.body!) === true),
    );
  }

  /** The formats that may read a call whose first character after the literal is `code`. */
  private candidatesFor(code: number | undefined): Candidate[] {
    const { group } = this;
    const joining = code === undefined ? [] : [...(group.byNextCode.get(code) ?? [])];
    if (code !== undefined && isNameDelimiter(code)) joining.push(...group.delimited);
    return [...group.ready, ...joining].sort((a, b) => a.order - b.order);
  }

  private startTrials(candidates: readonly Candidate[]): void {
    this.trials = this.withoutCovered(this.trialsOf(candidates));
  }

  private trialsOf(candidates: readonly Candidate[]): Trial[] {
    const trials: Trial[] = [];
    for (const candidate of candidates) {
      const trial = this.trialOf(candidate);
      if (trial) trials.push(trial);
    }
    return trials;
  }

  /**
   * The end of the call's telling start in `text[start, end)` (see MAX_TELLING_START), or -1
   * when the write ends first or the start is too long to tell anything.
   */
  private tellingEnd(text: string, start: number, end: number): number {
    const limit = Math.min(end, start + MAX_TELLING_START);
    for (let index = start; index < limit; index++) {
      const offset = index - start;
      if (
        offset < this.group.longestRest &&
        this.group.restPrefixes.has(text.slice(start, index + 1))
      )
        continue;
      if (isMarkupSpace(text.charCodeAt(index))) continue;
      return index + 1;
    }
    return -1;
  }

  write(text: string, start: number, end: number): number {
    if (this.adopted) return this.adopted.write(text, start, end);
    if (start >= end) return -1;
    if (!this.started) {
      this.started = true;
      const tellingEnd = this.tellingEnd(text, start, end);
      const reading =
        tellingEnd === -1
          ? []
          : decisionFor(this.group, text.slice(start, tellingEnd), this.probeOptions);
      if (reading.length === 1) return this.adopt(reading[0]!, text, start, end);
      if (reading.length > 1) {
        this.tellingStart = text.slice(start, tellingEnd);
        this.held = reading;
      } else this.startTrials(this.candidatesFor(text.charCodeAt(start)));
    }
    if (this.held !== undefined) {
      const known = this.knownFirstCommit(this.tellingStart!, text, start, end);
      if (known === POSSIBLE) return -1;
      if (known !== undefined) return this.adopt(known, text, start, end);
      const committed = this.startHeldTrials(start, end);
      if (committed) return this.adopt(committed, text, start, end);
    }
    let from = start;
    let size = FIRST_SLICE;
    while (from < end) {
      const to = Math.min(end, from + size);
      const ended = this.readSlice(text, from, to, start, end);
      if (ended !== undefined) return ended;
      from = to;
      size *= 2;
    }
    return -1;
  }

  /**
   * The format known to commit first on this call, now that the write `text[start, end)` is
   * read (see FirstCommits); undefined while unknown. The formats reading it are probes, so the
   * call is handed over as well after a few writes as at once.
   */
  private knownFirstCommit(
    telling: string,
    text: string,
    start: number,
    end: number,
  ): Candidate | typeof POSSIBLE | undefined {
    // The call's characters in earlier writes (its start, when it did not begin in this one).
    const before = this.context.callLength - (end - start) - this.bodyStart;
    const earlier =
      before === 0
        ? ''
        : this.context.callText(
            this.bodyStart,
            this.bodyStart + Math.min(before, MAX_PREFIX_CHARS),
          );
    return this.group.firstCommits.find(telling, earlier, text, start, end);
  }

  /**
   * The held formats start reading: each reads the call's text before the write
   * `text[start, end)` first (a format that gave up in it goes, a fault waits). Returns the
   * first in precedence that committed in it, if any (none does: the call so far began a kept
   * beginning only at its last character does a format commit).
   */
  private startHeldTrials(start: number, end: number): Candidate | undefined {
    const candidates = this.held!;
    this.held = undefined;
    const before = this.context.callText(this.bodyStart, this.context.callLength - (end - start));
    const live: Trial[] = [];
    for (const trial of this.withoutCovered(this.trialsOf(candidates))) {
      if (before.length > 0) this.readWrite(trial, before, 0, before.length, end - start);
      this.unfed = 0;
      if (committedTo(trial)) return trial.candidate;
      if (trial.droppedAt !== -1) continue;
      if (trial.stop !== -1) this.park(trial);
      else live.push(trial);
    }
    this.trials = live;
    return undefined;
  }

  /**
   * `candidate` committed first, at the write's character `at` (the write ends at `end`), on trials a telling
   * start chose: kept for the calls that begin the same way.
   */
  private keepFirstCommit(candidate: Candidate, at: number, end: number): void {
    const telling = this.tellingStart;
    if (telling === undefined) return;
    const length = this.context.callLength - (end - at - 1) - this.bodyStart;
    if (length > MAX_PREFIX_CHARS) return;
    const prefix = this.context.callText(this.bodyStart, this.bodyStart + length);
    this.group.firstCommits.keep(telling, prefix, candidate);
  }

  /**
   * Every probe reads `text[from, to)` of the write `text[start, end)`. Returns where the call
   * ended, -1 once a chosen body needs more text, or undefined while the formats read on.
   */
  private readSlice(
    text: string,
    from: number,
    to: number,
    start: number,
    end: number,
  ): number | undefined {
    const live = this.trials;
    for (const trial of live) this.readWrite(trial, text, from, to, end - to);
    this.unfed = 0;
    let committed: Trial | undefined;
    let committedCount = 0;
    for (const trial of live) {
      if (!committedTo(trial)) continue;
      committed ??= trial;
      committedCount++;
    }
    if (committedCount === 1) return this.adopt(committed!.candidate, text, start, end);
    if (committedCount > 1) {
      const first = this.firstToCommit(committed!, live, text, from, to, end);
      if (first) return this.adopt(first.candidate, text, start, end);
      return this.readAgainByCharacter(live, text, from, to, start, end);
    }
    return this.afterUndecidedSlice(live, text, from, start, end);
  }

  /**
   * Feeds a trial `text[start, end)` in one write; `after` characters of the engine's write
   * follow `end` (what the trial's `callLength` leaves out).
   */
  private readWrite(trial: Trial, text: string, start: number, end: number, after: number): void {
    const { candidate } = trial;
    let index = start;
    if (trial.body === undefined) {
      while (trial.gate < candidate.rest.length && index < end) {
        if (text.charCodeAt(index) !== candidate.rest.charCodeAt(trial.gate)) {
          trial.droppedAt = index;
          return;
        }
        trial.gate++;
        index++;
      }
      if (trial.gate < candidate.rest.length || index >= end) {
        if (trial.gate === candidate.rest.length && !candidate.delimited)
          this.open(trial, end - index + after);
        return;
      }
      // The delimiter after a delimited opener is not part of the opener: the body reads it.
      if (candidate.delimited && !isNameDelimiter(text.charCodeAt(index))) {
        trial.droppedAt = index;
        return;
      }
      this.open(trial, end - index + after);
    }
    if (!trial.started) {
      let first = index;
      while (first < end && isMarkupSpace(text.charCodeAt(first))) first++;
      if (first < end) {
        trial.started = true;
        if (!candidate.callStarts!.includes(text.charAt(first))) {
          trial.droppedAt = first;
          return;
        }
      }
    }
    this.unfed = after;
    const stop = trial.body!.write(text, index, end);
    if (stop === -1) return;
    trial.stop = stop;
    if ((trial.context.outcome?.kind ?? 'not-a-call') === 'not-a-call') trial.droppedAt = stop;
  }

  private open(trial: Trial, unfed: number): void {
    this.unfed = unfed;
    trial.body = trial.candidate.grammar.openCall(trial.candidate.data, trial.context);
  }

  /**
   * The format of `candidate` reads the call: a fresh body of it, on the engine's context, reads
   * the call from its start (the part in earlier writes in one go) and then the whole write
   * `text[start, end)`, up to `until` when it is given. Returns where the body ended the call.
   */
  private adopt(
    candidate: Candidate,
    text: string,
    start: number,
    end: number,
    until = end,
    endsAtUntil = false,
  ): number {
    this.trials = [];
    this.parked.length = 0;
    this.pick = undefined;
    const context = new AdoptedContext(this.context);
    const bodyFrom = this.bodyStart + candidate.rest.length - (candidate.lead?.length ?? 0);
    const writeFrom = this.context.callLength - (end - start);
    context.unfed = this.context.callLength - bodyFrom;
    const body = candidate.grammar.openCall(candidate.data, context);
    this.adopted = body;
    if (bodyFrom < writeFrom) {
      const before = this.context.callText(bodyFrom, writeFrom);
      context.unfed = end - start;
      const stop = body.write(before, 0, before.length);
      context.unfed = 0;
      // Only a fault that stood in an earlier write ends there (see settleFault).
      if (stop !== -1) return until;
      context.unfed = end - until;
      const ended = body.write(text, start, until);
      context.unfed = 0;
      return this.callEnd(ended, until, end, endsAtUntil);
    }
    context.unfed = end - until;
    const ended = body.write(text, start + (bodyFrom - writeFrom), until);
    context.unfed = 0;
    return this.callEnd(ended, until, end, endsAtUntil);
  }

  /**
   * Where an adopted call ends: at `until` when it stops short of the write's end; at the
   * write's end, the body's own end (-1: it reads on), unless the call was to end at `until`
   * anyway (a fault that stands: its raw text runs to the same place whether or not a chunk
   * ended there).
   */
  private callEnd(ended: number, until: number, end: number, endsAtUntil: boolean): number {
    if (until < end) return until;
    return endsAtUntil && ended !== -1 ? until : ended;
  }

  /**
   * Every other format gave up: the parked fault stands, and its raw text runs to `at` (the
   * fault's own end may lie in an earlier write, where the call can no longer end).
   */
  private settleFault(trial: Trial, at: number, text: string, start: number, end: number): number {
    return this.adopt(trial.candidate, text, start, end, at, true);
  }

  /**
   * Nobody committed in this slice: the formats that gave up go, faults wait. When none is left,
   * the call ends where the last of them ended (the same place however the text was chunked:
   * what ended in an earlier write ended before anything in this one).
   */
  private afterUndecidedSlice(
    live: readonly Trial[],
    text: string,
    from: number,
    start: number,
    end: number,
  ): number | undefined {
    const next: Trial[] = [];
    let last: Trial | undefined;
    let endsAt = from;
    for (const trial of live) {
      const ended = trial.droppedAt !== -1 ? trial.droppedAt : trial.stop;
      if (ended === -1) {
        next.push(trial);
        continue;
      }
      if (ended >= endsAt) {
        endsAt = ended;
        last = trial;
      }
      if (trial.droppedAt === -1) this.park(trial);
    }
    this.trials = next;
    if (next.length > 0) {
      if (next.length === 1 && this.parked.length === 0 && next[0]!.body) {
        return this.adopt(next[0]!.candidate, text, start, end);
      }
      return undefined;
    }
    const fault = this.parked[0];
    if (fault) return this.settleFault(fault, endsAt, text, start, end);
    this.lastDropped = last;
    this.context.settle({ kind: 'not-a-call' });
    return endsAt;
  }

  /**
   * Several formats committed in the same slice: fresh probes read what came before in one go
   * (nobody committed in it), then the slice one character at a time.
   */
  private readAgainByCharacter(
    live: readonly Trial[],
    text: string,
    from: number,
    to: number,
    start: number,
    end: number,
  ): number | undefined {
    const fresh = this.freshTrials(
      live.map((trial) => trial.candidate),
      from,
      end,
    );
    this.trials = fresh.filter((trial) => trial.droppedAt === -1 && trial.stop === -1);
    for (let index = from; index < to; index++) {
      this.unfed = end - index - 1;
      const ended = this.step(text, index, start, end);
      this.unfed = 0;
      if (ended !== undefined) return ended;
      const chosen = this.pick as Trial | undefined;
      if (chosen) {
        this.keepFirstCommit(chosen.candidate, index, end);
        return this.adopt(chosen.candidate, text, start, end);
      }
    }
    this.unfed = 0;
    return undefined;
  }

  /** Fresh probes of `candidates`, fed what came before `text[from]` in one go. */
  private freshTrials(candidates: readonly Candidate[], from: number, end: number): Trial[] {
    const before = this.context.callText(this.bodyStart, this.context.callLength - (end - from));
    const fresh = this.trialsOf(candidates);
    if (before.length > 0) {
      for (const trial of fresh) this.readWrite(trial, before, 0, before.length, end - from);
    }
    this.unfed = 0;
    return fresh;
  }

  /**
   * Several formats committed in the slice `text[from, to)`, `first` the first of them in
   * precedence: it is the reading when none of the others committed before the character where
   * it did (a tie goes to precedence). Finding that character takes one fresh probe read a
   * character at a time, and each other format one fresh probe read up to it in one go; returns
   * undefined when another did commit first (then every format is read again by character).
   */
  private firstToCommit(
    first: Trial,
    live: readonly Trial[],
    text: string,
    from: number,
    to: number,
    end: number,
  ): Trial | undefined {
    const [probe] = this.freshTrials([first.candidate], from, end);
    if (!probe || probe.droppedAt !== -1 || probe.stop !== -1) return undefined;
    let at = -1;
    for (let index = from; index < to && at === -1; index++) {
      this.readWrite(probe, text, index, index + 1, end - index - 1);
      if (committedTo(probe)) at = index;
      else if (probe.droppedAt !== -1 || probe.stop !== -1) break;
    }
    this.unfed = 0;
    if (at === -1) return undefined;
    const others = live.filter((trial) => trial !== first && committedTo(trial));
    for (const other of this.freshTrials(
      others.map((trial) => trial.candidate),
      from,
      end,
    )) {
      if (committedTo(other)) return undefined;
      if (at > from && other.droppedAt === -1 && other.stop === -1) {
        this.readWrite(other, text, from, at, end - at);
        this.unfed = 0;
      }
      if (committedTo(other)) return undefined;
    }
    this.keepFirstCommit(first.candidate, at, end);
    return first;
  }

  /** Feeds `text[index]` to every trial; returns where the call ended if it did. */
  private step(text: string, index: number, start: number, end: number): number | undefined {
    // Where the text goes on if no format reads a call here: after what the bodies consumed.
    let lastStop = index;
    const live: Trial[] = [];
    for (const trial of this.trials) {
      this.readWrite(trial, text, index, index + 1, this.unfed);
      if (trial.droppedAt !== -1) {
        // Gave up on the character: not this format's call.
        if (trial.stop > lastStop) {
          lastStop = trial.stop;
          this.lastDropped = trial;
        }
        continue;
      }
      live.push(trial);
    }
    this.trials = live;
    if (this.trials.length === 0) {
      const fault = this.parked[0];
      if (fault) return this.settleFault(fault, index + 1, text, start, end);
      this.context.settle({ kind: 'not-a-call' });
      return lastStop;
    }
    return this.decide(index, text, start, end);
  }

  /** With every live trial fed up to `index`: picks, parks, or waits. */
  private decide(index: number, text: string, start: number, end: number): number | undefined {
    const live = this.trials;
    // The first trial, in format order, to commit is the reading.
    for (const trial of live) {
      if (trial.context.committed || trial.stop !== -1) {
        if (trial.stop !== -1 && trial.context.outcome?.kind === 'fault' && live.length > 1) {
          continue;
        }
        if (trial.stop !== -1 && trial.context.outcome?.kind === 'fault') {
          return this.settleFault(trial, trial.stop, text, start, end);
        }
        this.pick = trial;
        return undefined;
      }
    }
    for (const trial of live) {
      if (trial.stop !== -1 && trial.context.outcome?.kind === 'fault') this.park(trial);
    }
    this.trials = live.filter((trial) => trial.stop === -1);
    if (this.trials.length === 0) {
      const fault = this.parked[0];
      if (fault) return this.settleFault(fault, index + 1, text, start, end);
      this.context.settle({ kind: 'not-a-call' });
      return index + 1;
    }
    if (this.trials.length === 1 && this.parked.length === 0 && this.trials[0]!.body) {
      this.pick = this.trials[0]!;
    }
    return undefined;
  }

  /**
   * Keeps a fault in precedence order, so the one that stands does not depend on which write
   * each fault ended in.
   */
  private park(trial: Trial): void {
    this.parked.push(trial);
    this.parked.sort((a, b) => a.candidate.order - b.candidate.order);
  }

  /** The output ended with `candidate` chosen: its body reads the whole call and finishes it. */
  private adoptAtEnd(candidate: Candidate, interrupted: boolean): void {
    const length = this.context.callLength;
    const bodyFrom = this.bodyStart + candidate.rest.length - (candidate.lead?.length ?? 0);
    const context = new AdoptedContext(this.context);
    context.unfed = length - bodyFrom;
    const body = candidate.grammar.openCall(candidate.data, context);
    this.adopted = body;
    context.unfed = 0;
    const text = this.context.callText(bodyFrom, length);
    if (text.length > 0 && body.write(text, 0, text.length) !== -1) return;
    body.finish(interrupted);
  }

  finish(interrupted: boolean): void {
    if (this.adopted) {
      this.adopted.finish(interrupted);
      return;
    }
    if (!this.started) {
      this.started = true;
      this.startTrials(this.candidatesFor(undefined));
    }
    if (this.held !== undefined) {
      const length = this.context.callLength;
      const committed = this.startHeldTrials(length, length);
      if (committed) {
        this.adoptAtEnd(committed, interrupted);
        return;
      }
    }
    // The output ended undecided: the first format whose reading is a call, else a fault.
    let fallback: Trial | undefined = this.parked[0];
    for (const trial of this.trials) {
      if (!trial.body) continue;
      trial.body.finish(interrupted);
      const kind = trial.context.outcome?.kind;
      if (kind === 'call' || kind === 'markup') {
        this.adoptAtEnd(trial.candidate, interrupted);
        return;
      }
      if (kind === 'fault' && fallback === undefined) fallback = trial;
    }
    if (fallback) {
      this.adoptAtEnd(fallback.candidate, interrupted);
      return;
    }
    this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.adopted?.abandon();
  }
}
