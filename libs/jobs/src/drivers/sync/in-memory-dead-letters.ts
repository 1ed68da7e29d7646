import type { DeadLetter } from '../../dead-letters/dead-letter';

/**
 * The dead letters of the sync driver, kept in memory for the life of the application: get it in a test with
 * `app.get(InMemoryDeadLetters).list()`.
 */
export class InMemoryDeadLetters {
  private readonly letters: DeadLetter[] = [];

  /** Records a failed job. */
  add(letter: DeadLetter): void {
    this.letters.push(letter);
  }

  /** Every dead letter so far, oldest first. */
  list(): DeadLetter[] {
    return [...this.letters];
  }

  /** Forgets them all (between tests). */
  clear(): void {
    this.letters.length = 0;
  }
}
