// Billing: the balance and how long it lasts (both from account info), adding funds and the
// payment's confirmation (billing-payments.tsx), spending per month as a stacked bar chart (one
// invoice/sum per month, as the API totals it), invoice items grouped by the month they started
// in, bank transfers awaited, transactions and the monthly invoice documents.

import { api, type InvoiceItem, type InvoiceSum } from '../api.ts';
import { useAccount } from '../account-context.ts';
import { duration, money, transactionStatus, transactionWords, when } from '../format.tsx';
import { ErrorLine } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';
import { useLoad } from '../use-load.ts';
import { AddFunds, Documents, PaymentConfirmation, PendingTransfers } from './billing-payments.tsx';

const MONTHS = 6;
const SERIES: [keyof InvoiceSum, string][] = [
  ['server', 'Servers'],
  ['license', 'Licences'],
  ['backup', 'Backups'],
  ['snapshot', 'Snapshots'],
  ['ddos_protection', 'DDoS protection'],
  ['block_storage', 'Block storage'],
  ['object_storage', 'Object storage'],
];

function monthStarts(latest: number): { label: string; from: string; to: string }[] {
  const end = new Date(latest);
  const months = [];
  for (let back = MONTHS - 1; back >= 0; back--) {
    const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - back, 1));
    const next = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    months.push({
      label: start.toISOString().slice(0, 7),
      from: start.toISOString().replace('.000', ''),
      to: next.toISOString().replace('.000', ''),
    });
  }
  return months;
}

function SpendingChart(props: { months: { label: string; sum: InvoiceSum }[] }) {
  const width = 640;
  const height = 220;
  const pad = { left: 56, right: 12, top: 12, bottom: 28 };
  const value = (sum: InvoiceSum, key: keyof InvoiceSum) => (typeof sum[key] === 'number' ? (sum[key] as number) : 0);
  const stacks = props.months.map((m) => SERIES.map(([key]) => value(m.sum, key)));
  const top = Math.max(1, ...stacks.map((parts) => parts.reduce((a, b) => a + b, 0)));
  const plotH = height - pad.top - pad.bottom;
  const slot = (width - pad.left - pad.right) / props.months.length;
  const bar = Math.min(56, slot * 0.6);
  const used = SERIES.filter((_, i) => stacks.some((parts) => parts[i] > 0));
  const summary = props.months.map((m, i) => `${m.label}: ${money(stacks[i].reduce((a, b) => a + b, 0))}`).join(', ');
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Spending by month: ${summary}`}>
        {[0, 0.5, 1].map((f) => {
          const y = pad.top + plotH * (1 - f);
          return (
            <g key={f}>
              <line x1={pad.left} x2={width - pad.right} y1={y} y2={y} class="grid-line" />
              <text x={pad.left - 6} y={y + 4} text-anchor="end" class="axis">
                {money(top * f)}
              </text>
            </g>
          );
        })}
        {props.months.map((m, i) => {
          let y = pad.top + plotH;
          const x = pad.left + slot * i + (slot - bar) / 2;
          return (
            <g key={m.label}>
              {SERIES.map(([key, label], s) => {
                const h = (stacks[i][s] / top) * plotH;
                if (h <= 0) return null;
                y -= h;
                return (
                  <rect key={key} x={x} y={y} width={bar} height={h} class={`series-${s}`}>
                    <title>{`${m.label} ${label}: ${money(stacks[i][s])}`}</title>
                  </rect>
                );
              })}
              <text x={x + bar / 2} y={height - 8} text-anchor="middle" class="axis">
                {m.label}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="legend">
          {used.map(([key, label]) => (
            <li key={key}>
              <span class={`swatch series-${SERIES.findIndex(([k]) => k === key)}`} aria-hidden="true" /> {label}
            </li>
          ))}
          {used.length === 0 && <li>No spending in these months.</li>}
        </ul>
      </figcaption>
    </figure>
  );
}

export function BillingPage() {
  const { account } = useAccount();
  const invoices = useLoad(() => api.invoices());
  const transactions = useLoad(() => api.transactions());
  const latest = Math.max(
    Date.now(),
    ...(invoices.data?.invoices ?? []).map((item) => Date.parse(item.ts_created) || 0),
  );
  const monthKey = new Date(latest).toISOString().slice(0, 7);
  const sums = useLoad(async () => {
    const months = monthStarts(latest);
    const answers = await Promise.all(months.map((m) => api.invoiceSum(m.from, m.to)));
    return months.map((m, i) => ({ label: m.label, sum: answers[i] }));
  }, [monthKey, invoices.data]);
  const byMonth = new Map<string, InvoiceItem[]>();
  for (const item of invoices.data?.invoices ?? []) {
    const key = item.ts_created.slice(0, 7);
    byMonth.set(key, [...(byMonth.get(key) ?? []), item]);
  }
  return (
    <Page title="Billing">
      <PaymentConfirmation transactions={transactions.data?.transactions} reload={transactions.reload} />
      <div class="grid">
        <section class="card" aria-labelledby="b-balance">
          <h2 id="b-balance">Balance</h2>
          <p class="big">{money(account?.balance)}</p>
          <dl>
            <dt>Time left at current usage</dt>
            <dd>{account ? duration(account.billing.secondsdue) : '…'}</dd>
            <dt>Runs out</dt>
            <dd>{when(account?.billing.duedate)}</dd>
            <dt>Usage billed hourly</dt>
            <dd>{money(account?.billing.usage, 4)} per hour</dd>
          </dl>
        </section>
        <AddFunds onTransfer={() => void transactions.reload()} />
        <section class="card wide" aria-labelledby="b-chart">
          <h2 id="b-chart">Spending by month</h2>
          <ErrorLine error={sums.error} />
          {sums.data ? <SpendingChart months={sums.data} /> : <p>Loading…</p>}
        </section>
      </div>
      <section class="card" aria-labelledby="b-invoices">
        <h2 id="b-invoices">Invoices</h2>
        <ErrorLine error={invoices.error} />
        {byMonth.size === 0 && <p class="empty">No invoice items yet.</p>}
        {[...byMonth].map(([month, items]) => {
          const sum = sums.data?.find((m) => m.label === month)?.sum;
          return (
            <details key={month} open={month === monthKey}>
              <summary>
                Invoice {month}
                {sum &&
                  ` — ${
                    SERIES.map(([k, l]) =>
                      typeof sum[k] === 'number' && (sum[k] as number) > 0 ? `${l} ${money(sum[k] as number)}` : '',
                    )
                      .filter(Boolean)
                      .join(', ') || 'nothing charged'
                  }`}
              </summary>
              <ListTable
                headers={['Item', 'Per hour', 'Per month', 'Hours', 'Started', 'Ended']}
                rows={items}
                rowKey={(item, index) => `${item.ts_created}-${index}`}
              >
                {(item) => (
                  <>
                    <td>{item.description}</td>
                    <td>{money(item.amount_hr, 4)}</td>
                    <td>{money(item.amount_mo)}</td>
                    <td>{item.usage}</td>
                    <td>{when(item.ts_created)}</td>
                    <td>{item.active ? 'still billed' : when(item.ts_removed)}</td>
                  </>
                )}
              </ListTable>
            </details>
          );
        })}
      </section>
      <PendingTransfers transactions={transactions.data?.transactions} />
      <section class="card" aria-labelledby="b-transactions">
        <h2 id="b-transactions">Transactions</h2>
        <ErrorLine error={transactions.error} />
        <ListTable
          headers={['Date', 'Amount', 'What', 'Status']}
          rows={transactions.data?.transactions}
          rowKey={(t) => String(t.id)}
          empty="No transactions yet."
        >
          {(t) => (
            <>
              <td>{when(t.ts_created)}</td>
              <td>{money(t.amount)}</td>
              <td>{transactionWords(t)}</td>
              <td>{transactionStatus(t.pstatus)}</td>
            </>
          )}
        </ListTable>
      </section>
      <Documents />
    </Page>
  );
}
