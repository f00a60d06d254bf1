// The server page's graphs: CPU, memory, network in/out and disk over the last hour, day or
// month, as the API answers them (the engine's readings, or the simulated driver's series).

import { useMemo, useState } from 'preact/hooks';
import { api, type MetricPeriod, type Server } from '../../api.ts';
import { ErrorLine } from '../../forms.tsx';
import { Section } from '../../section.tsx';
import { useLoad } from '../../use-load.ts';
import { type ChartSeries, UsageChart } from '../../usage-chart.tsx';

const POLL_MS = 30_000;

const periodNames: [MetricPeriod, string][] = [
  ['hour', 'Last hour'],
  ['day', 'Last day'],
  ['month', 'Last month'],
];

const percent = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} %`;
function megabytes(value: number): string {
  if (value >= 1024) return `${(value / 1024).toFixed(1)} GB`;
  return `${value.toFixed(value < 10 ? 1 : 0)} MB`;
}
function rate(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)} MB/s`;
  if (value >= 1_000) return `${(value / 1_000).toFixed(1)} kB/s`;
  return `${value.toFixed(0)} B/s`;
}

export function MetricsSection(props: { server: Server }) {
  const s = props.server;
  const [period, setPeriod] = useState<MetricPeriod>('hour');
  const metrics = useLoad(() => api.serverMetrics(s.uuid, period), [s.uuid, period], POLL_MS);
  const data = metrics.data;
  // One set of arrays per answer, so the charts redraw only when the numbers change.
  const charts = useMemo(() => {
    const points = data?.points ?? [];
    const column = (key: 'cpu' | 'memory_mb' | 'disk_mb' | 'rx_bps' | 'tx_bps'): (number | null)[] =>
      points.map((point) => point[key]);
    const series = (...entries: ChartSeries[]) => entries;
    return {
      times: points.map((point) => Date.parse(point.time) / 1000),
      cpu: series({ label: 'CPU', values: column('cpu') }),
      memory: series({ label: 'Memory', values: column('memory_mb') }),
      network: series({ label: 'In', values: column('rx_bps') }, { label: 'Out', values: column('tx_bps') }),
      disk: series({ label: 'Disk', values: column('disk_mb') }),
    };
  }, [data]);
  return (
    <Section title="Graphs" class="wide">
      <fieldset class="periods">
        <legend class="visually-hidden">Period</legend>
        {periodNames.map(([value, label]) => (
          <button key={value} type="button" aria-pressed={period === value} onClick={() => setPeriod(value)}>
            {label}
          </button>
        ))}
      </fieldset>
      <ErrorLine error={metrics.error} />
      {data && data.points.length === 0 && (
        <p class="muted">
          No readings yet: the engine is read at each reconciliation, and the graphs fill as the server runs.
        </p>
      )}
      {data && data.points.length > 0 && (
        <div class="charts">
          <UsageChart title="CPU" times={charts.times} series={charts.cpu} format={percent} />
          <UsageChart title="Memory" times={charts.times} series={charts.memory} format={megabytes} />
          <UsageChart title="Network" times={charts.times} series={charts.network} format={rate} />
          <UsageChart title="Disk" times={charts.times} series={charts.disk} format={megabytes} />
        </div>
      )}
      {data?.source === 'simulated' && (
        <p class="muted">Simulated: a plausible series derived from the server, not read from a machine.</p>
      )}
    </Section>
  );
}
