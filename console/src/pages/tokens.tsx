// API tokens: create (the secret shown once), rename, revoke.

import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { session } from '../session.ts';
import { CopyButton, RemoveButton } from '../buttons.tsx';
import { when } from '../format.tsx';
import { ErrorLine, Field, Form, FormStatus, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';
import { useLoad } from '../use-load.ts';

export function TokensPage() {
  const tokens = useLoad(() => api.tokens());
  const form = useForm();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [renaming, setRenaming] = useState<{ uuid: string; name: string } | null>(null);
  return (
    <Page title="Tokens">
      <Form
        label="Create token"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            const answer = await api.createToken(name);
            setCreated({ name: answer.name, token: answer.token });
            setName('');
            await tokens.reload();
          })
        }
      >
        <Field label="Token name" name="name" value={name} onValue={setName} errors={form.errors} />
        <button type="submit" class="primary" disabled={form.busy}>
          Create token
        </button>
      </Form>
      {created && (
        <p class="done" role="status">
          Token <strong>{created.name}</strong>: <code class="secret">{created.token}</code>{' '}
          <CopyButton text={created.token} label={`Copy token ${created.name}`} />
        </p>
      )}
      <FormStatus form={form} />
      <ErrorLine error={tokens.error} />
      <ListTable
        headers={['Name', 'Token', 'Created', 'Last used', 'Actions']}
        rows={tokens.data?.tokens}
        rowKey={(t) => t.uuid}
      >
        {(t) => (
          <>
            <td>
              {renaming?.uuid === t.uuid ? (
                <Form
                  label={`Rename ${t.name}`}
                  class="form inline"
                  onSubmit={() =>
                    form.run(async () => {
                      await api.renameToken(t.uuid, renaming.name);
                      setRenaming(null);
                      await tokens.reload();
                    }, 'Token renamed.')
                  }
                >
                  <Field
                    label="New name"
                    name="name"
                    value={renaming.name}
                    onValue={(value) => setRenaming({ uuid: t.uuid, name: value })}
                    errors={form.errors}
                  />
                  <button type="submit">Save name</button>
                </Form>
              ) : (
                t.name
              )}
            </td>
            <td class="mono">
              {t.auth_token.slice(0, 8)}… <CopyButton text={t.auth_token} label={`Copy token ${t.name}`} />
            </td>
            <td>{when(t.created)}</td>
            <td>{when(t.last_used)}</td>
            <td class="row">
              <button type="button" onClick={() => setRenaming({ uuid: t.uuid, name: t.name })}>
                Rename {t.name}
              </button>
              <RemoveButton
                label={`Remove ${t.name}`}
                question={`Remove the token ${t.name}? Anything using it stops working${
                  t.auth_token === session.token() ? ', this console included' : ''
                }.`}
                form={form}
                remove={() => api.removeToken(t.uuid)}
                refresh={tokens.reload}
                done="Token removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </Page>
  );
}
