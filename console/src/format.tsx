// How values read in the console: money, times, durations and the power badge.

export function money(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined) return '–';
  const sign = value < 0 ? '−' : '';
  return `${sign}$${Math.abs(value).toFixed(digits)}`;
}

export function when(value: string | null | undefined): string {
  if (!value) return '–';
  return value.replace('T', ' ').replace('Z', ' UTC');
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'no usage: funds last indefinitely';
  if (seconds <= 0) return 'out of funds';
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  if (days > 0) return `${days} day${days === 1 ? '' : 's'} ${hours} h`;
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${hours} h ${minutes} min`;
}

export function PowerBadge(props: { power: string }) {
  return <span class={`badge power-${props.power.replace(/[^a-z]/g, '')}`}>{props.power}</span>;
}
