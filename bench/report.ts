/**
 * One benchmark figure as a markdown table row: the measured median, its floor and the library
 * baseline timed in the same rounds (bench/harness.ts), and the two ratios.
 */

/** A measured operation with its floor and library baseline, each a median in ms. */
export interface Figure {
  readonly name: string;
  /** Unit the row prints, after multiplying ms by `scale` (e.g. `µs` with 1,000). */
  readonly unit: string;
  readonly scale: number;
  readonly measured: number;
  readonly floor: number;
  readonly library: number;
  /** Target for measured ÷ floor, if there is one. */
  readonly target?: number;
}

/** Header of the table {@link figureRow} writes rows of. */
export const FIGURE_HEADER = [
  '| case | measured | floor | ÷ floor | target | library baseline | ÷ library baseline |',
  '|---|---:|---:|---:|---:|---:|---:|',
] as const;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/** A figure as a row of {@link FIGURE_HEADER}'s table. */
export function figureRow(figure: Figure): string {
  const at = (ms: number) => `${fmt(ms * figure.scale)} ${figure.unit}`;
  const ratio = figure.measured / figure.floor;
  const target = figure.target === undefined ? '' : `≤ ${figure.target}× ${ratio <= figure.target ? '✓' : '✗'}`;
  return `| ${figure.name} | ${at(figure.measured)} | ${at(figure.floor)} | ${ratio.toFixed(2)}× | ${target} | ${at(figure.library)} | ${(figure.measured / figure.library).toFixed(2)}× |`;
}
