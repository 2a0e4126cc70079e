/**
 * Lines of a text that arrives in chunks (a runtime API answer, a process's stdout), for the streamed
 * listings of the drift check (issue #13 item 7): each complete line is handed on as a range of the
 * chunk it lies in, so no line array and no copy of the chunk is made; only a line cut between two
 * chunks is put together.
 */
export class ChunkLines {
  readonly #fn: (text: string, start: number, end: number) => void;
  /** The start of a line cut at the end of the last chunk. */
  #carry = "";

  /** `fn` is called with each line as `text[start, end)` (without its newline), in order. */
  constructor(fn: (text: string, start: number, end: number) => void) {
    this.#fn = fn;
  }

  /** Reads the next chunk. */
  push(chunk: string): void {
    const fn = this.#fn;
    let at = 0;
    for (let nl = chunk.indexOf("\n"); nl >= 0; nl = chunk.indexOf("\n", at)) {
      if (this.#carry === "") fn(chunk, at, nl);
      else {
        const line = this.#carry + chunk.slice(at, nl);
        this.#carry = "";
        fn(line, 0, line.length);
      }
      at = nl + 1;
    }
    if (at < chunk.length) this.#carry += chunk.slice(at);
  }

  /** The text is complete: hands on a last line that ended without a newline. */
  end(): void {
    const carry = this.#carry;
    this.#carry = "";
    if (carry !== "") this.#fn(carry, 0, carry.length);
  }
}
