// The Billing page's money-in parts: adding funds (by card on the processor's page, or by bank
// transfer with a reference), the confirmation when the processor sends the customer back, the
// bank transfers still awaited, and the monthly invoice documents to download.

import { useEffect, useState } from 'preact/hooks';
import { api, type BankTransfer, type InvoiceDocument, type Transaction } from '../api.ts';
import { useAccount } from '../account-context.ts';
import { money, when } from '../format.tsx';
import { ErrorLine, Field, Form, FormStatus, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Section } from '../section.tsx';
import { useLoad } from '../use-load.ts';

/** Where the processor sends the customer back: this page, which then shows the outcome. */
const returnPath = '#/billing/payment';

export function AddFunds(props: { onTransfer: () => void }) {
  const options = useLoad(() => api.paymentOptions());
  const form = useForm();
  const [amount, setAmount] = useState('');
  const [transfer, setTransfer] = useState<BankTransfer | null>(null);
  const o = options.data;
  const hint = o
    ? `From ${o.minimum} to ${o.maximum} USD, added to your balance${o.taxrate ? `; ${o.taxrate} % VAT is charged on top` : ''}.`
    : undefined;
  // What the customer pays, said before they pay: the amount plus VAT at the account's rate.
  const cents = Math.round(Number(amount) * 100);
  const taxCents = o && Number.isFinite(cents) && cents > 0 ? Math.round((cents * o.taxrate) / 100) : null;
  const payByCard = () =>
    form.run(async () => {
      const { checkout_url } = await api.checkout(amount, `${location.origin}${location.pathname}${returnPath}`);
      location.assign(checkout_url);
    });
  const payByTransfer = () =>
    form.run(async () => {
      setTransfer(await api.bankTransfer(amount));
      props.onTransfer();
    });
  return (
    <Section title="Add funds">
      <ErrorLine error={options.error} />
      <Form onSubmit={() => void (o?.card.available ? payByCard() : payByTransfer())} label="Add funds">
        <Field
          label="Amount (USD)"
          name="amount"
          value={amount}
          onValue={setAmount}
          errors={form.errors}
          hint={hint}
          required
        />
        {taxCents !== null && (
          <p class="price" aria-live="polite">
            You pay <strong>{money((cents + taxCents) / 100)}</strong>
            {o?.taxrate ? `: ${money(cents / 100)} plus ${o.taxrate} % VAT (${money(taxCents / 100)}).` : ' (no VAT).'}{' '}
            Your balance grows by {money(cents / 100)}.
          </p>
        )}
        <div class="row">
          {o?.card.available && (
            <button type="submit" class="primary" disabled={form.busy}>
              Pay by card
            </button>
          )}
          <button
            type="button"
            class={o?.card.available ? undefined : 'primary'}
            disabled={form.busy}
            onClick={() => void payByTransfer()}
          >
            Pay by bank transfer
          </button>
        </div>
        {o && !o.card.available && <p class="muted">Card payments are off: {o.card.reason}</p>}
        <FormStatus form={form} />
      </Form>
      {transfer && (
        <div role="status">
          <p>
            Transfer <strong>{money(transfer.instructions.amount)}</strong> with the reference{' '}
            <strong>{transfer.instructions.reference}</strong>; your balance grows by{' '}
            {money(transfer.transaction.amount)} once it arrives.
          </p>
          <dl>
            <dt>Account holder</dt>
            <dd>{transfer.instructions.holder}</dd>
            <dt>IBAN</dt>
            <dd>{transfer.instructions.iban}</dd>
            {transfer.instructions.bic && (
              <>
                <dt>BIC</dt>
                <dd>{transfer.instructions.bic}</dd>
              </>
            )}
            <dt>Reference</dt>
            <dd>{transfer.instructions.reference}</dd>
          </dl>
        </div>
      )}
    </Section>
  );
}

/** The payment the processor sent the customer back about (`#/billing/payment?payment=<id>&outcome=…`), as the API reports it. */
export function PaymentConfirmation(props: { transactions: Transaction[] | undefined; reload: () => Promise<void> }) {
  const { refresh } = useAccount();
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const id = query.get('payment');
  const outcome = query.get('outcome');
  const payment = props.transactions?.find((t) => t.id === id);
  const waiting = id !== null && outcome === 'paid' && payment?.pstatus === 'pending';
  // The processor's confirmation may arrive a moment after the customer: ask again until it has.
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void props.reload(), 2000);
    return () => clearInterval(timer);
  }, [waiting]);
  const completed = payment?.pstatus === 'completed';
  useEffect(() => {
    if (completed) void refresh();
  }, [completed]);
  if (id === null) return null;
  let text: string;
  if (!payment) text = 'Looking up your payment…';
  else if (payment.pstatus === 'completed') text = `Payment received: ${money(payment.amount)} added to your balance.`;
  else if (payment.pstatus === 'expired')
    text = 'The checkout expired before it was paid: nothing was charged. Start again to add funds.';
  else if (payment.pstatus === 'failed' || outcome !== 'paid')
    text = `The payment was ${outcome === 'cancelled' ? 'cancelled' : 'not completed'}: nothing was charged.`;
  else text = "Waiting for the payment processor's confirmation…";
  return (
    <Section title="Payment">
      <p role="status" class={completed ? 'done' : undefined}>
        {text}
      </p>
    </Section>
  );
}

export function PendingTransfers(props: { transactions: Transaction[] | undefined }) {
  const pending = (props.transactions ?? []).filter((t) => t.ptype === 'bank' && t.pstatus === 'pending');
  if (pending.length === 0) return null;
  return (
    <Section title="Bank transfers awaited">
      <ListTable headers={['Requested', 'Reference', 'Amount']} rows={pending} rowKey={(t) => t.id}>
        {(t) => (
          <>
            <td>{when(t.ts_created)}</td>
            <td>{t.reference}</td>
            <td>{money(t.amount)}</td>
          </>
        )}
      </ListTable>
    </Section>
  );
}

/** Saves a document under the name Nubis gives it (the same as the CLI and the mail's attachment). */
async function save(document: InvoiceDocument): Promise<void> {
  const blob = await api.documentPdf(document.id);
  const url = URL.createObjectURL(blob);
  const link = window.document.createElement('a');
  link.href = url;
  link.download = document.filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Documents() {
  const documents = useLoad(() => api.documents());
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <Section title="Invoice documents">
      <ErrorLine error={documents.error} />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ListTable
        headers={['Number', 'Month', 'Usage', 'Payments', 'VAT', 'Balance at month end', '']}
        rows={documents.data?.documents}
        rowKey={(d) => String(d.id)}
        empty="No invoice documents yet: one comes on the first of each month after a month with activity."
      >
        {(d) => (
          <>
            <td>{d.number_text}</td>
            <td>{d.period}</td>
            <td>{money(d.usage)}</td>
            <td>{money(d.payments)}</td>
            <td>{money(d.tax)}</td>
            <td>{money(d.closing_balance)}</td>
            <td>
              <button
                type="button"
                aria-label={`Download invoice ${d.number_text} (${d.period})`}
                onClick={() => save(d).catch((e) => setProblem(String(e?.message ?? e)))}
              >
                Download PDF
              </button>
            </td>
          </>
        )}
      </ListTable>
    </Section>
  );
}
