// The mail Nubis sent, newest first, filtered by recipient.

import { useState } from 'preact/hooks';
import { admin } from '../../api.ts';
import { when } from '../../format.tsx';
import { ErrorLine, Field, Form } from '../../forms.tsx';
import { Page } from '../../page.tsx';
import { useLoad } from '../../use-load.ts';

export function OutboxPage() {
  const [to, setTo] = useState('');
  const [filter, setFilter] = useState('');
  const outbox = useLoad(() => admin.outbox(filter || undefined), [filter], 5000);
  return (
    <Page title="Outbox">
      <Form label="Filter outbox" class="form inline" onSubmit={() => setFilter(to.trim())}>
        <Field label="Recipient" name="to" type="search" value={to} onValue={setTo} />
        <button type="submit">Filter</button>
      </Form>
      <ErrorLine error={outbox.error} />
      {(outbox.data?.messages ?? []).map((m) => (
        <article class="card mail" key={m.id} aria-label={`Mail to ${m.to}: ${m.subject}`}>
          <h2>{m.subject}</h2>
          <p class="muted">
            To {m.to} · {when(m.created)} · {m.delivered ? 'delivered' : 'not delivered over SMTP'}
          </p>
          <pre>{m.text}</pre>
        </article>
      ))}
      {outbox.data?.messages.length === 0 && <p class="empty">No mail.</p>}
    </Page>
  );
}
