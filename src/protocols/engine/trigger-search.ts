import { workMeter } from './work-meter.ts';

/**
 * Finds the next of a few trigger characters (the characters openers begin with) in one text.
 * Each trigger's next position is kept, so text with many of one trigger and none of another is
 * not searched to its end again and again.
 *
 * Positions belong to one text: `find` is told which (a number the engine counts up per text).
 * They stay right when reading moves back within the text by no more than to where the last
 * search began: a kept position says there is no trigger between where it was searched from and
 * itself, and a call body hands back only characters after its opener, which a search found.
 */
export class TriggerSearch {
  private readonly triggers: readonly string[];
  /** Per trigger: its next position, -1 for none, -2 for not searched yet in this text. */
  private readonly next: number[];
  private textNumber = -1;
  /** The triggers that are one character, and the first characters of the longer ones. */
  private readonly characters = new Set<number>();
  private readonly wordFirsts = new Set<number>();
  private readonly words: readonly string[];

  constructor(triggers: readonly string[]) {
    this.triggers = triggers;
    this.next = triggers.map(() => -2);
    this.words = triggers.filter((trigger) => trigger.length > 1);
    for (const trigger of triggers) {
      if (trigger.length === 1) this.characters.add(trigger.charCodeAt(0));
      else this.wordFirsts.add(trigger.charCodeAt(0));
    }
  }

  /** The first trigger at or after `from` in `text`, or -1. */
  find(text: string, from: number, textNumber: number): number {
    // A short text (a stream's small chunk) is read once, character by character, rather than
    // searched once per trigger.
    if (text.length - from <= SHORT_TEXT) return this.scan(text, from);
    const next = this.next;
    if (this.textNumber !== textNumber) {
      this.textNumber = textNumber;
      for (let index = 0; index < next.length; index++) next[index] = -2;
    }
    let first = -1;
    for (let index = 0; index < next.length; index++) {
      let found = next[index]!;
      if (found === -2 || (found !== -1 && found < from)) {
        found = text.indexOf(this.triggers[index]!, from);
        next[index] = found;
        workMeter.characters += (found === -1 ? text.length : found + 1) - from;
      }
      if (found !== -1 && (first === -1 || found < first)) first = found;
    }
    return first;
  }

  private scan(text: string, from: number): number {
    for (let index = from; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (this.characters.has(code)) {
        workMeter.characters += index + 1 - from;
        return index;
      }
      if (this.wordFirsts.has(code)) {
        for (const word of this.words) {
          if (text.startsWith(word, index)) {
            workMeter.characters += index + 1 - from;
            return index;
          }
        }
      }
    }
    workMeter.characters += text.length - from;
    return -1;
  }
}

/** Texts up to this long are read character by character (see `find`). */
const SHORT_TEXT = 32;
