// One usage graph drawn by uPlot (a small, kept chart library): a time axis and one or two
// series, in the theme's colours (drawn again when the theme changes), as wide as its card.
// The canvas is an image to assistive technology; its label says the latest and highest values.

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { whenOnAxis } from './format.tsx';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

/** The x axis' labels: the time, and the date under the first tick and wherever the day changes. */
function axisTimes(ticks: number[]): string[] {
  let day = '';
  return ticks.map((seconds) => {
    const { date, time } = whenOnAxis(seconds * 1000);
    const label = date === day ? time : `${time}\n${date}`;
    day = date;
    return label;
  });
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function UsageChart(props: {
  title: string;
  /** Seconds since the epoch, one per value. */
  times: number[];
  series: ChartSeries[];
  format: (value: number) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const { times, series, format } = props;
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let chart: uPlot | null = null;
    const draw = () => {
      chart?.destroy();
      const text = css('--text');
      const grid = css('--border');
      const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
      chart = new uPlot(
        {
          width: Math.max(200, element.clientWidth),
          height: 160,
          legend: { show: false },
          // The console tells times in UTC, as the API does.
          tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
          cursor: { show: false },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
          axes: [
            // Times as the rest of the console writes them (2026-11-28 02:20), never uPlot's 2:20am 11/28/26.
            { ...axis, size: 52, values: (_u, ticks) => axisTimes(ticks) },
            { ...axis, size: 84, values: (_u, ticks) => ticks.map((tick) => format(tick)) },
          ],
          series: [
            {},
            ...series.map((entry, index) => ({
              label: entry.label,
              stroke: css(`--series-${index}`),
              width: 2,
              spanGaps: false,
            })),
          ],
        },
        [times, ...series.map((entry) => entry.values)],
        element,
      );
    };
    draw();
    const resize = new ResizeObserver(() => {
      if (chart && Math.abs(chart.width - element.clientWidth) > 4) draw();
    });
    resize.observe(element);
    const theme = new MutationObserver(draw);
    theme.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      resize.disconnect();
      theme.disconnect();
      chart?.destroy();
    };
  }, [times, series, format]);

  const summary = series
    .map((entry) => {
      const present = entry.values.filter((value): value is number => value !== null);
      // A graph of one series is named by its title alone.
      const name = series.length > 1 ? `${entry.label}: ` : '';
      if (!present.length) return `${name}no readings`;
      return `${name}latest ${format(present.at(-1)!)}, highest ${format(Math.max(...present))}`;
    })
    .join('; ');
  return (
    <figure class="usage-chart">
      <figcaption>
        <span class="usage-title">{props.title}</span>
        {series.length > 1 && (
          <span class="legend">
            {series.map((entry, index) => (
              <span key={entry.label}>
                <span class="swatch" style={{ background: `var(--series-${index})` }} aria-hidden="true" />
                {entry.label}
              </span>
            ))}
          </span>
        )}
      </figcaption>
      <div ref={box} role="img" aria-label={`${props.title}: ${summary}`} />
    </figure>
  );
}
