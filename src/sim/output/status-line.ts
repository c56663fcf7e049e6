/**
 * One line of status at the bottom of a terminal (the simulator's progress), that steps aside for
 * output: the simulated ranks run in this process, so their console.log lands between redraws.
 * While it is shown, writes to stdout and stderr first clear the line, and it is drawn again
 * once the output has ended its line. Hand-written rather than cli-progress: that draws bars
 * towards a known total and owns the line between redraws; the simulator knows no total and
 * must keep every line of program output whole.
 */

type Write = typeof process.stdout.write;

const CLEAR = '\r\x1b[2K';

export class StatusLine {
  private readonly terminal: NodeJS.WriteStream;
  private readonly originals = new Map<NodeJS.WriteStream, Write>();
  private text = '';
  private shown = false;
  /** False while some output has not ended its line (the status would land inside it). */
  private atLineStart = true;

  /** Draws on `terminal` (a TTY: stderr); output to the other standard stream steps aside when it is a TTY too. */
  constructor(terminal: NodeJS.WriteStream = process.stderr) {
    this.terminal = terminal;
  }

  /** Starts intercepting output and shows `text`. */
  start(text: string): void {
    for (const stream of [process.stdout, process.stderr]) {
      if (!stream.isTTY || this.originals.has(stream)) continue;
      const original = stream.write;
      this.originals.set(stream, original);
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        this.hide();
        const result = (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
        const last = typeof chunk === 'string' ? chunk.at(-1) : chunk.length > 0 ? String.fromCharCode(chunk[chunk.length - 1]!) : undefined;
        if (last !== undefined) this.atLineStart = last === '\n';
        this.draw();
        return result;
      }) as Write;
    }
    this.update(text);
  }

  update(text: string): void {
    this.text = text;
    this.draw();
  }

  /** Removes the line and gives the streams back. */
  stop(): void {
    this.hide();
    for (const [stream, original] of this.originals) stream.write = original;
    this.originals.clear();
  }

  private draw(): void {
    if (!this.atLineStart || this.text === '') return;
    const width = Math.max(20, (this.terminal.columns || 80) - 1);
    this.raw(`${CLEAR}${this.text.length > width ? `${this.text.slice(0, width - 1)}…` : this.text}`);
    this.shown = true;
  }

  private hide(): void {
    if (!this.shown) return;
    this.raw(CLEAR);
    this.shown = false;
  }

  private raw(text: string): void {
    const write = this.originals.get(this.terminal) ?? this.terminal.write;
    write.call(this.terminal, text);
  }
}
