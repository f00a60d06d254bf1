// SSH keys: add a public key, rename, remove.

import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { RemoveButton } from '../buttons.tsx';
import { when } from '../format.tsx';
import { ErrorLine, Field, Form, FormStatus, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';
import { useLoad } from '../use-load.ts';

export function SshKeysPage() {
  const keys = useLoad(() => api.sshKeys());
  const form = useForm();
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  return (
    <Page title="SSH keys">
      <Form
        label="Add SSH key"
        onSubmit={() =>
          form.run(async () => {
            const created = await api.createSshKey(name, publicKey.trim());
            setName('');
            setPublicKey('');
            await keys.reload();
            return created;
          }, 'SSH key added.')
        }
      >
        <Field label="Name" name="name" value={name} onValue={setName} errors={form.errors} />
        <Field
          label="Public key"
          name="public_key"
          multiline
          value={publicKey}
          onValue={setPublicKey}
          errors={form.errors}
          placeholder="ssh-rsa AAAA… or ecdsa-sha2-nistp256 AAAA…"
          hint="Paste the contents of your id_rsa.pub or id_ecdsa.pub."
        />
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy}>
          Add SSH key
        </button>
      </Form>
      <ErrorLine error={keys.error} />
      <ListTable
        headers={['Name', 'Fingerprint', 'Created', 'Actions']}
        rows={keys.data?.ssh_keys}
        rowKey={(k) => k.uuid}
        empty="No SSH keys."
      >
        {(k) => (
          <>
            <td>{k.name}</td>
            <td class="mono">{k.fingerprint}</td>
            <td>{when(k.created)}</td>
            <td>
              <RemoveButton
                label={`Remove ${k.name}`}
                question={`Remove the SSH key ${k.name}? Servers that have it keep it.`}
                form={form}
                remove={() => api.removeSshKey(k.uuid)}
                refresh={keys.reload}
                done="SSH key removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </Page>
  );
}
