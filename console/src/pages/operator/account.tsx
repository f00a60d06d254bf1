// One account as the operator sees it: activate, block, SMTP, credit with a note, limits and
// permissions, its servers and its transactions.

import { useState } from 'preact/hooks';
import { type AdminAccount, admin } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { money, when } from '../../format.tsx';
import { Checkbox, ErrorLine, Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Page } from '../../page.tsx';
import { useLoad } from '../../use-load.ts';
import { ServerTable } from './server-table.tsx';

export function AccountPage(props: { account: string }) {
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

export function AccountDetail(props: { account: AdminAccount; reload: () => Promise<void> }) {
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
