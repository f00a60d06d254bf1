// The operator's account list, searched by e-mail.

import { useState } from 'preact/hooks';
import { admin } from '../../api.ts';
import { money } from '../../format.tsx';
import { ErrorLine, Field, Form } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Page } from '../../page.tsx';
import { Link } from '../../router.tsx';
import { useLoad } from '../../use-load.ts';

export function AccountsPage() {
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
