/**
 * One benchmark figure as a markdown table row: the measured median, its floor and the library
 * baseline timed in the same rounds (bench/harness.ts), and the two paired ratios.
 */
import { median, pairedRatio } from './harness';

/** Per-round CPU times (ms per call) of an operation, its floor and its library baseline. */
export interface Samples {
  readonly measured: readonly number[];
  readonly floor: readonly number[];
  readonly library: readonly number[];
}

/** A measured operation with its floor and library baseline. */
export interface Figure {
  readonly name: string;
  /** Unit the row prints, after multiplying ms by `scale` (e.g. `µs` with 1,000). */
  readonly unit: string;
  readonly scale: number;
  readonly samples: Samples;
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
  const { measured, floor, library } = figure.samples;
  const at = (samples: readonly number[]) => `${fmt(median(samples) * figure.scale)} ${figure.unit}`;
  const ratio = pairedRatio(measured, floor);
  const target = figure.target === undefined ? '' : `≤ ${figure.target}× ${ratio <= figure.target ? '✓' : '✗'}`;
  return `| ${figure.name} | ${at(measured)} | ${at(floor)} | ${ratio.toFixed(2)}× | ${target} | ${at(library)} | ${pairedRatio(measured, library).toFixed(2)}× |`;
}
