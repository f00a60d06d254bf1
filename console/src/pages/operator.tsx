// The operator's console, signed in with the operator token (ADMIN_TOKEN): accounts (search,
// activate, block, limits, permissions, credit with a note, their servers and transactions),
// servers across accounts, the mail outbox, the clock and the reset.

import { useState } from 'preact/hooks';
import { type AdminAccount, admin } from '../api.ts';
import { session } from '../session.ts';
import { ConfirmButton, RemoveButton } from '../buttons.tsx';
import { money, PowerBadge, when } from '../format.tsx';
import { Checkbox, ErrorLine, Field, Form, FormStatus, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';
import { Link, navigate } from '../router.tsx';
import { useLoad } from '../use-load.ts';
import { TerminalPanel } from '../terminal.tsx';

const nav: [string, string][] = [
  ['/admin/accounts', 'Accounts'],
  ['/admin/servers', 'Servers'],
  ['/admin/outbox', 'Outbox'],
  ['/admin/clock', 'Clock'],
  ['/admin/audit', 'Audit log'],
];

export function OperatorApp(props: { path: string }) {
  const parts = props.path.split('/').filter(Boolean);
  let page = null;
  if (parts[1] === 'accounts' && parts[2]) page = <AccountPage account={decodeURIComponent(parts[2])} />;
  else if (parts[1] === 'servers') page = <ServersPage />;
  else if (parts[1] === 'outbox') page = <OutboxPage />;
  else if (parts[1] === 'clock') page = <ClockPage />;
  else if (parts[1] === 'audit') page = <AuditPage />;
  else page = <AccountsPage />;
  return (
    <div class="shell operator">
      <header class="top">
        <span class="brand">Nubis operator</span>
        <nav aria-label="Operator">
          {nav.map(([to, label]) => (
            <Link key={to} to={to} current={props.path.startsWith(to)}>
              {label}
            </Link>
          ))}
        </nav>
        <span class="who" />
        <button
          type="button"
          onClick={() => {
            session.operatorOut();
            navigate('/login');
          }}
        >
          Sign out operator
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}

function AccountsPage() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const accounts = useLoad(() => admin.accounts(search || undefined), [search]);
  return (
    <Page title="Accounts">
      <Form label="Search accounts" class="form inline" onSubmit={() => setSearch(query.trim())}>
        <Field label="Email" name="email" type="search" value={query} onValue={setQuery} />
        <button type="submit">Search</button>
      </Form>
      <ErrorLine error={accounts.error} />
      <ListTable
        headers={['Email', 'Name', 'Balance', 'Servers', 'State']}
        rows={accounts.data?.accounts}
        rowKey={(a) => a.uuid}
        empty="No account matches."
      >
        {(a) => (
          <>
            <td>
              <Link to={`/admin/accounts/${a.id}`}>{a.email}</Link>
            </td>
            <td>
              {a.profile.firstname} {a.profile.lastname}
            </td>
            <td>{money(a.balance)}</td>
            <td>
              {a.servers.running} / {a.servers.limit}
            </td>
            <td>{[a.activated ? 'active' : 'not activated', a.blocked ? 'blocked' : ''].filter(Boolean).join(', ')}</td>
          </>
        )}
      </ListTable>
    </Page>
  );
}

function AccountPage(props: { account: string }) {
  const account = useLoad(() => admin.account(props.account), [props.account]);
  const a = account.data;
  if (!a)
    return (
      <Page title="Account">
        <ErrorLine error={account.error} />
      </Page>
    );
  return <AccountDetail key={a.uuid} account={a} reload={account.reload} />;
}

function AccountDetail(props: { account: AdminAccount; reload: () => Promise<void> }) {
  const a = props.account;
  const flags = useForm();
  const limits = useForm();
  const credit = useForm();
  const [limit, setLimit] = useState(String(a.servers.limit));
  const [permissions, setPermissions] = useState<Record<string, boolean>>(a.permissions ?? {});
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const servers = useLoad(() => admin.servers(String(a.id)), [a.id]);
  const transactions = useLoad(() => admin.transactions(String(a.id)), [a.id]);
  const patch = (changes: Parameters<typeof admin.patchAccount>[1], done: string) =>
    flags.run(async () => {
      await admin.patchAccount(String(a.id), changes);
      await props.reload();
    }, done);

  return (
    <Page title={a.email}>
      <div class="grid">
        <section class="card" aria-labelledby="oa-state">
          <h2 id="oa-state">State</h2>
          <dl>
            <dt>Name</dt>
            <dd>
              {a.profile.firstname} {a.profile.lastname} ({a.profile.country})
            </dd>
            <dt>Balance</dt>
            <dd class="big">{money(a.balance)}</dd>
            <dt>Activated</dt>
            <dd>{a.activated ? 'yes' : 'no'}</dd>
            <dt>Blocked</dt>
            <dd>{a.blocked ? 'yes' : 'no'}</dd>
            <dt>SMTP</dt>
            <dd>{a.smtp ? 'allowed' : 'not allowed'}</dd>
            <dt>Registered</dt>
            <dd>{when(a.registerdate)}</dd>
          </dl>
          <div class="row">
            <button
              type="button"
              onClick={() => patch({ activated: !a.activated }, a.activated ? 'Deactivated.' : 'Activated.')}
            >
              {a.activated ? 'Deactivate account' : 'Activate account'}
            </button>
            {a.blocked ? (
              <button type="button" onClick={() => patch({ blocked: false }, 'Unblocked.')}>
                Unblock account
              </button>
            ) : (
              <ConfirmButton
                label="Block account"
                question={`Block ${a.email}? The account can no longer log in or use the API.`}
                confirmLabel="Yes, block"
                danger
                onConfirm={() => patch({ blocked: true }, 'Blocked.')}
              />
            )}
            <button type="button" onClick={() => patch({ smtp: !a.smtp }, 'SMTP changed.')}>
              {a.smtp ? 'Disallow SMTP' : 'Allow SMTP'}
            </button>
          </div>
          <FormStatus form={flags} />
        </section>
        <section class="card" aria-labelledby="oa-credit">
          <h2 id="oa-credit">Credit</h2>
          <Form
            label="Credit account"
            onSubmit={() =>
              credit.run(async () => {
                await admin.credit(String(a.id), amount, note);
                setAmount('');
                setNote('');
                await props.reload();
                await transactions.reload();
              }, 'Credited.')
            }
          >
            <Field
              label="Amount"
              name="amount"
              value={amount}
              onValue={setAmount}
              errors={credit.errors}
              hint="USD; negative debits."
            />
            <Field label="Note" name="note" value={note} onValue={setNote} errors={credit.errors} />
            <FormStatus form={credit} />
            <button type="submit" class="primary" disabled={credit.busy}>
              Add credit
            </button>
          </Form>
        </section>
        <section class="card" aria-labelledby="oa-limits">
          <h2 id="oa-limits">Limits and permissions</h2>
          <Form
            label="Limits and permissions"
            onSubmit={() =>
              limits.run(async () => {
                await admin.patchAccount(String(a.id), { servers_limit: Number(limit), permissions });
                await props.reload();
              }, 'Saved.')
            }
          >
            <Field
              label="Server limit"
              name="servers_limit"
              type="number"
              value={limit}
              onValue={setLimit}
              errors={limits.errors}
            />
            <fieldset>
              <legend>Permissions</legend>
              {Object.keys(permissions).map((name) => (
                <Checkbox
                  key={name}
                  label={name}
                  name={`permissions.${name}`}
                  checked={permissions[name]}
                  onChecked={(checked) => setPermissions({ ...permissions, [name]: checked })}
                  errors={limits.errors}
                />
              ))}
            </fieldset>
            <FormStatus form={limits} />
            <button type="submit" class="primary" disabled={limits.busy}>
              Save limits and permissions
            </button>
          </Form>
        </section>
      </div>
      <section class="card" aria-labelledby="oa-servers">
        <h2 id="oa-servers">Servers</h2>
        <ErrorLine error={servers.error?.status === 404 ? undefined : servers.error} />
        {servers.error?.status === 404 ? (
          <p class="muted">This server's operator API has no server list.</p>
        ) : (
          <ServerTable servers={servers.data?.servers ?? []} onChange={servers.reload} />
        )}
      </section>
      <section class="card" aria-labelledby="oa-transactions">
        <h2 id="oa-transactions">Transactions</h2>
        {transactions.error ? (
          <p class="muted">
            {transactions.error.status === 404
              ? "This server's operator API has no transaction list for an account."
              : transactions.error.message}
          </p>
        ) : (
          <ListTable
            headers={['Date', 'Amount', 'Method', 'Note']}
            rows={transactions.data?.transactions}
            rowKey={(t) => String(t.id)}
          >
            {(t) => (
              <>
                <td>{when(t.ts_created)}</td>
                <td>{money(t.amount)}</td>
                <td>{t.ptype}</td>
                <td>{t.note ?? ''}</td>
              </>
            )}
          </ListTable>
        )}
      </section>
    </Page>
  );
}

function ServerTable(props: {
  servers: Awaited<ReturnType<typeof admin.servers>>['servers'];
  onChange: () => Promise<void>;
}) {
  const form = useForm();
  // The server whose machine console is open below the list (the operator may open any).
  const [watched, setWatched] = useState<{ uuid: string; name: string } | null>(null);
  return (
    <>
      <FormStatus form={form} />
      {watched && (
        <TerminalPanel
          key={watched.uuid}
          path={`/admin/servers/${encodeURIComponent(watched.uuid)}/console`}
          token={session.operator() ?? ''}
          kind="operator"
          title={`Console of ${watched.name}`}
          onClose={() => setWatched(null)}
        />
      )}
      <ListTable
        headers={['Name', 'Account', 'State', 'Region', 'Plan', 'Created', 'Actions']}
        rows={props.servers}
        rowKey={(s) => s.uuid}
        empty="No servers."
      >
        {(s) => (
          <>
            <td>{s.name}</td>
            <td>
              <Link to={`/admin/accounts/${s.account_id}`}>{s.account_email}</Link>
            </td>
            <td>
              <PowerBadge power={s.power} />
            </td>
            <td>{s.region}</td>
            <td>{s.plan}</td>
            <td>{when(s.created)}</td>
            <td class="row">
              <button type="button" onClick={() => setWatched({ uuid: s.uuid, name: s.name })}>
                Console of {s.name}
              </button>
              <ConfirmButton
                label={`Force stop ${s.name}`}
                question={`Pull the plug on ${s.name}?`}
                confirmLabel="Yes, stop it"
                danger
                onConfirm={() =>
                  form.run(async () => {
                    await admin.forceStop(s.uuid);
                    await props.onChange();
                  }, 'Stopped.')
                }
              />
              <RemoveButton
                label={`Remove ${s.name}`}
                question={`Remove ${s.name} of ${s.account_email}? This cannot be undone.`}
                form={form}
                remove={() => admin.removeServer(s.uuid)}
                refresh={props.onChange}
                done="Removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </>
  );
}

function ServersPage() {
  const servers = useLoad(() => admin.servers(), [], 5000);
  return (
    <Page title="Servers across accounts">
      {servers.error?.status === 404 ? (
        <p class="muted">This server's operator API has no server list.</p>
      ) : (
        <>
          <ErrorLine error={servers.error} />
          <ServerTable servers={servers.data?.servers ?? []} onChange={servers.reload} />
        </>
      )}
    </Page>
  );
}

function OutboxPage() {
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

function ClockPage() {
  const clock = useLoad(() => admin.clock(), [], 5000);
  const form = useForm();
  const [hours, setHours] = useState('1');
  const seconds = Math.round(Number(hours) * 3600);
  return (
    <Page title="Clock">
      <ErrorLine error={clock.error} />
      <p class="big">{when(clock.data?.now)}</p>
      <p class="muted">Mode: {clock.data?.mode}</p>
      <div class="form inline">
        <Field
          label="Hours to advance"
          name="seconds"
          type="number"
          value={hours}
          onValue={setHours}
          errors={form.errors}
        />
        <ConfirmButton
          label="Advance clock"
          disabled={!(seconds > 0) || clock.data?.mode !== 'virtual'}
          question={`Move the clock forward ${hours} hour(s)? Billing, provisioning and backups all follow it.`}
          confirmLabel="Yes, advance"
          onConfirm={() =>
            form.run(async () => {
              await admin.advance(seconds);
              await clock.reload();
            }, 'Clock advanced.')
          }
        />
      </div>
      <FormStatus form={form} />
      <h2>Reset</h2>
      <ConfirmButton
        label="Reset everything"
        danger
        question="Delete every account and resource? The catalog and the clock stay."
        confirmLabel="Yes, delete everything"
        onConfirm={() => form.run(() => admin.reset(), 'Everything was reset.')}
      />
    </Page>
  );
}

function AuditPage() {
  const audit = useLoad(() => admin.audit(), [], 10000);
  return (
    <Page title="Audit log">
      {audit.error?.status === 404 ? (
        <p class="muted">This server's operator API has no audit log.</p>
      ) : (
        <>
          <ErrorLine error={audit.error} />
          <ListTable
            headers={['When', 'Operator', 'Call', 'Target', 'Status']}
            rows={audit.data?.entries}
            rowKey={(e) => e.id}
          >
            {(e) => (
              <>
                <td>{when(e.time)}</td>
                <td>{e.operator}</td>
                <td class="mono">{e.call}</td>
                <td>{e.target}</td>
                <td>{e.status}</td>
              </>
            )}
          </ListTable>
        </>
      )}
    </Page>
  );
}
