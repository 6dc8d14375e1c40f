import type { CliIo } from './io';

/**
 * One line of progress on stderr, rewritten in place (`\r`) while a long step runs (reading a
 * large `--env` file, checking and hashing its keys: docs/cli.md, "Progress"). Drawn only when
 * stderr is a terminal and the command was not asked for `--json` (`quiet`), so pipes, logs,
 * tests and machine output never see it.
 */
export interface StatusLine {
  /** Replaces the line's text (a shorter text is padded with spaces over the longer one). */
  readonly show: (text: string) => void;
  /** Ends the line (when one was drawn), so the next output starts on a fresh line. */
  readonly finish: () => void;
}

/** A {@link StatusLine} on `io.stderr`; `quiet` (a command's `--json`) draws nothing. */
export function statusLine(io: CliIo, options: { readonly quiet?: boolean } = {}): StatusLine {
  const draws = io.stderrIsTty && !options.quiet;
  let width = 0;
  return {
    show: (text) => {
      if (!draws) return;
      io.stderr(`\r${text.padEnd(width)}`);
      width = Math.max(width, text.length);
    },
    finish: () => {
      if (width > 0) io.stderr('\n');
      width = 0;
    },
  };
}
