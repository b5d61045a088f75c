/**
 * Reads a harmony-style header one character at a time, from just after its opener to the
 * message marker: the role, the channel, the recipient and the content type, in the order
 * harmony writes them, with horizontal white space allowed between them (some tokenizers write
 * `<|channel|> commentary`). No backtracking: each character is looked at once.
 */
import { GREATER_THAN, LESS_THAN, SPACE, TAB } from '../../../scan/char-codes.ts';
import { isWhiteSpace, isWordOrHyphen } from '../../../scan/characters.ts';
import type { HeaderModeSpec, MessageMeaning } from './header-spec.ts';

/** Where a header's reading begins: what its opener already took. */
export type HeaderStart =
  /** After `open` (`<|start|>`): the role comes first. */
  | 'role'
  /** After the channel marker (`<|channel|>`), the role written by the prompt. */
  | 'channel'
  /** After ` to=` at a line's start, the prompt having written `open` and the role. */
  | 'recipient';

/** A header's longest text (up to the message marker): a longer one is prose. */
export const MAX_HEADER_CHARS = 256;

/** What a header says the message is. */
export type HeaderMeaning =
  | { readonly kind: MessageMeaning }
  /** A call of `name` (the recipient, its name prefix dropped). */
  | { readonly kind: 'call'; readonly name: string };

const Phase = {
  /** White space before a word (after `open`, the channel marker, the constrain marker). */
  SpaceBeforeWord: 0,
  /** The role's or the channel's name, one of a known list. */
  KnownWord: 1,
  /** The recipient's name. */
  Recipient: 2,
  /** The content type's word. */
  Word: 3,
  /** Between the parts. */
  Between: 4,
  /** A special token (`<|channel|>`, `<|constrain|>`, `<|message|>`). */
  Marker: 5,
  /** The recipient's prefix (`to=`). */
  Prefix: 6,
  Done: 7,
  Failed: 8,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** Longest content-type word (`json`). */
const MAX_WORD = 32;

export class HeaderReader {
  private phase: Phase;
  /** After white space, which word comes: the role, the channel, or the content type. */
  private wordKind: 'role' | 'channel' | 'constrain';
  private word = '';
  private channel: string | undefined;
  private recipient: string | undefined;
  private constrained = false;
  /** White space was read since the last part. */
  private spacedSinceLast = false;
  /** The marker or prefix read so far. */
  private literal = '';
  private length = 0;
  /** A special token was followed by white space (`<|channel|> final`): so is the message marker. */
  spaced = false;
  /** How many characters the header had when its role ended (for `open` then prose). */
  roleEnd = -1;

  private readonly mode: HeaderModeSpec;
  private readonly literals: ModeLiterals;

  constructor(mode: HeaderModeSpec, start: HeaderStart) {
    this.mode = mode;
    this.literals = literalsOf(mode);
    if (start === 'recipient') {
      this.phase = Phase.Recipient;
      this.wordKind = 'role';
      this.recipient = '';
    } else {
      this.phase = Phase.SpaceBeforeWord;
      this.wordKind = start;
    }
  }

  /** The header is read (the message marker was), or it is not one. */
  get done(): boolean {
    return this.phase === Phase.Done;
  }

  get failed(): boolean {
    return this.phase === Phase.Failed;
  }

  /** Nothing but `open` and a whole role was read (`<|start|>assistant`, at the output's end). */
  get onlyRole(): boolean {
    return (
      this.phase === Phase.KnownWord &&
      this.wordKind === 'role' &&
      this.mode.roles.includes(this.word)
    );
  }

  /**
   * Reads `text[start, end)` until the header ends or is found not to be one. Returns the index
   * just after the message marker, the index of the character that is no header's, or -1 when
   * more is needed.
   */
  read(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      if (this.phase === Phase.Recipient) {
        // The recipient's run is cut out at once, not appended a character at a time.
        const stop = Math.min(end, index + MAX_HEADER_CHARS - this.length);
        let at = index;
        while (at < stop && this.isRecipientCharacter(text.charCodeAt(at))) at++;
        if (at > index) {
          this.recipient += text.slice(index, at);
          this.length += at - index;
          index = at;
          if (index === end) return -1;
        }
      }
      if (this.length++ >= MAX_HEADER_CHARS) {
        this.phase = Phase.Failed;
        return index;
      }
      const step = this.step(text.charCodeAt(index), text[index]!);
      if (this.phase === Phase.Failed) return index;
      if (this.phase === Phase.Done) return index + 1;
      // A word ended at a character that begins the next part: read it again there.
      if (!step) {
        index--;
        this.length--;
      }
    }
    return -1;
  }

  /** What the header says the message is; call only once `done`. */
  meaning(): HeaderMeaning {
    const mode = this.mode;
    if (this.recipient !== undefined) {
      const recipients = mode.recipients ?? {};
      if (Object.hasOwn(recipients, this.recipient)) return { kind: recipients[this.recipient]! };
      return { kind: 'call', name: withoutPrefix(this.recipient, mode.namePrefixes ?? []) };
    }
    if (this.channel !== undefined) return { kind: mode.channel!.names[this.channel]! };
    return { kind: mode.noRecipient ?? 'text' };
  }

  /** One character; false when it was not consumed (the part before it ended). */
  private step(code: number, character: string): boolean {
    switch (this.phase) {
      case Phase.SpaceBeforeWord:
        if (code === SPACE || code === TAB) {
          this.spaced = true;
          return true;
        }
        this.phase = this.wordKind === 'constrain' ? Phase.Word : Phase.KnownWord;
        this.word = '';
        return false;
      case Phase.KnownWord:
        return this.knownWord(code, character);
      case Phase.Word:
        if (isWordOrHyphen(code) && this.word.length < MAX_WORD) {
          this.word += character;
          return true;
        }
        if (this.word.length === 0) this.phase = Phase.Failed;
        else this.endPart();
        return false;
      case Phase.Recipient:
        if (this.isRecipientCharacter(code)) {
          this.recipient += character;
          return true;
        }
        if (this.recipient!.length === 0) this.phase = Phase.Failed;
        else this.endPart();
        return false;
      case Phase.Between:
        return this.between(code, character);
      case Phase.Marker:
        return this.marker(character);
      case Phase.Prefix: {
        this.literal += character;
        if (!this.mode.recipient.startsWith(this.literal)) this.phase = Phase.Failed;
        else if (this.literal.length === this.mode.recipient.length) {
          this.phase = Phase.Recipient;
          this.recipient = '';
        }
        return true;
      }
      default:
        return true;
    }
  }

  /** A role's or channel's name: read while it may still grow into a known one. */
  private knownWord(code: number, character: string): boolean {
    const known = this.wordKind === 'role' ? this.mode.roles : this.literals.channels;
    const longer = this.word + character;
    if (isWordOrHyphen(code) && known.some((word) => word.startsWith(longer))) {
      this.word = longer;
      return true;
    }
    if (!known.includes(this.word)) {
      this.phase = Phase.Failed;
      return true;
    }
    if (this.wordKind === 'role') {
      this.roleEnd = this.length - 1;
    } else this.channel = this.word;
    this.endPart();
    return false;
  }

  private endPart(): void {
    this.phase = Phase.Between;
    this.spacedSinceLast = false;
  }

  private between(code: number, character: string): boolean {
    if (code === SPACE || code === TAB) {
      this.spacedSinceLast = true;
      return true;
    }
    if (this.beginsMarker(code)) {
      this.phase = Phase.Marker;
      this.literal = '';
      return false;
    }
    if (!this.spacedSinceLast) {
      this.phase = Phase.Failed;
      return true;
    }
    if (this.recipient === undefined && character === this.mode.recipient[0]) {
      this.phase = Phase.Prefix;
      this.literal = '';
      return false;
    }
    if (this.channel !== undefined && !this.constrained && isWordOrHyphen(code)) {
      // A bare content type after the channel (`commentary json`: its marker stripped).
      this.constrained = true;
      this.phase = Phase.Word;
      this.word = '';
      return false;
    }
    this.phase = Phase.Failed;
    return true;
  }

  /** A recipient ends at white space or a special token (`to=functions.f<|channel|>`). */
  private isRecipientCharacter(code: number): boolean {
    return !isWhiteSpace(code) && !this.beginsMarker(code) && code !== GREATER_THAN;
  }

  private beginsMarker(code: number): boolean {
    return code === LESS_THAN || this.literals.markerStarts.includes(code);
  }

  private marker(character: string): boolean {
    this.literal += character;
    const literal = this.literal;
    const markers = this.literals.markers;
    const matched = markers.find((marker) => marker === literal);
    if (matched === undefined) {
      if (!markers.some((marker) => marker.startsWith(literal))) this.phase = Phase.Failed;
      return true;
    }
    if (matched === this.mode.message) this.phase = Phase.Done;
    else if (matched === this.mode.channel?.marker && this.channel === undefined) {
      this.phase = Phase.SpaceBeforeWord;
      this.wordKind = 'channel';
    } else if (matched === this.mode.constrain && !this.constrained) {
      this.constrained = true;
      this.phase = Phase.SpaceBeforeWord;
      this.wordKind = 'constrain';
    } else this.phase = Phase.Failed;
    return true;
  }
}

/** What a reader looks for, made once per mode (a reader is made per header). */
interface ModeLiterals {
  /** The special tokens inside a header: the message marker, the channel's, the content type's. */
  readonly markers: readonly string[];
  /** Their first characters. */
  readonly markerStarts: readonly number[];
  readonly channels: readonly string[];
}

const literalsByMode = new WeakMap<HeaderModeSpec, ModeLiterals>();

function literalsOf(mode: HeaderModeSpec): ModeLiterals {
  let literals = literalsByMode.get(mode);
  if (literals === undefined) {
    const markers = [
      mode.message,
      ...(mode.channel ? [mode.channel.marker] : []),
      ...(mode.constrain ? [mode.constrain] : []),
    ];
    literals = {
      markers,
      markerStarts: markers.map((marker) => marker.charCodeAt(0)),
      channels: Object.keys(mode.channel?.names ?? {}),
    };
    literalsByMode.set(mode, literals);
  }
  return literals;
}

/** `name` less the first of `prefixes` it begins with (`functions.get_weather` → `get_weather`). */
function withoutPrefix(name: string, prefixes: readonly string[]): string {
  for (const prefix of prefixes) {
    if (name.startsWith(prefix) && name.length > prefix.length) return name.slice(prefix.length);
  }
  return name;
}

/**
 * The tool a whole header (its text after the opener, without the message marker) calls, or
 * undefined when it is no call's header (for a reader that reads the header itself).
 */
export function calledToolIn(
  mode: HeaderModeSpec,
  start: HeaderStart,
  header: string,
): string | undefined {
  const reader = new HeaderReader(mode, start);
  const text = header + mode.message;
  if (reader.read(text, 0, text.length) !== text.length || !reader.done) return undefined;
  const meaning = reader.meaning();
  return meaning.kind === 'call' ? meaning.name : undefined;
}
