// Account settings: profile, e-mail, password, and dark_mode — stored through the API and
// applied to the console's theme at once.

import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useAccount } from '../account-context.ts';
import { applyTheme } from '../theme.ts';
import { when } from '../format.tsx';
import { Checkbox, Field, Form, FormStatus, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';

export function SettingsPage() {
  const { account, refresh } = useAccount();
  const profile = useForm();
  const password = useForm();
  const theme = useForm();
  const [firstname, setFirstname] = useState('');
  const [lastname, setLastname] = useState('');
  const [country, setCountry] = useState('');
  const [email, setEmail] = useState('');
  const [newPassword, setNewPassword] = useState('');
  useEffect(() => {
    if (!account) return;
    setFirstname(account.profile.firstname);
    setLastname(account.profile.lastname);
    setCountry(account.profile.country);
    setEmail(account.email);
  }, [account?.uuid]);
  // The switch follows the click at once; the account's value takes over when it is read back.
  const [pending, setPending] = useState<boolean | null>(null);
  const dark = pending ?? account?.profile.dark_mode ?? false;

  return (
    <Page title="Settings">
      <div class="grid">
        <section class="card" aria-labelledby="st-theme">
          <h2 id="st-theme">Appearance</h2>
          <Checkbox
            label="Dark mode"
            name="dark_mode"
            checked={dark}
            disabled={!account || theme.busy}
            errors={theme.errors}
            onChecked={(checked) =>
              theme.run(
                async () => {
                  setPending(checked);
                  applyTheme(checked);
                  try {
                    await api.updateAccount({ dark_mode: checked });
                    await refresh();
                  } catch (e) {
                    applyTheme(!checked);
                    throw e;
                  } finally {
                    setPending(null);
                  }
                },
                checked ? 'Dark mode on.' : 'Dark mode off.',
              )
            }
          />
          <FormStatus form={theme} />
        </section>
        <section class="card" aria-labelledby="st-profile">
          <h2 id="st-profile">Profile</h2>
          <Form
            label="Profile"
            onSubmit={() =>
              profile.run(async () => {
                await api.updateAccount({
                  firstname,
                  lastname,
                  country,
                  ...(email !== account?.email ? { email } : {}),
                });
                await refresh();
              }, 'Profile saved.')
            }
          >
            <div class="row">
              <Field
                label="First name"
                name="firstname"
                value={firstname}
                onValue={setFirstname}
                errors={profile.errors}
              />
              <Field label="Last name" name="lastname" value={lastname} onValue={setLastname} errors={profile.errors} />
            </div>
            <Field
              label="Country"
              name="country"
              value={country}
              onValue={(v) => setCountry(v.toUpperCase())}
              errors={profile.errors}
            />
            <Field label="Email" name="email" type="email" value={email} onValue={setEmail} errors={profile.errors} />
            <FormStatus form={profile} />
            <button type="submit" class="primary" disabled={profile.busy}>
              Save profile
            </button>
          </Form>
        </section>
        <section class="card" aria-labelledby="st-password">
          <h2 id="st-password">Password</h2>
          <Form
            label="Change password"
            onSubmit={() =>
              password.run(async () => {
                await api.updateAccount({ password: newPassword });
                setNewPassword('');
              }, 'Password changed.')
            }
          >
            <Field
              label="New password"
              name="password"
              type="password"
              autocomplete="new-password"
              value={newPassword}
              onValue={setNewPassword}
              errors={password.errors}
            />
            <FormStatus form={password} />
            <button type="submit" class="primary" disabled={password.busy}>
              Change password
            </button>
          </Form>
        </section>
        <section class="card" aria-labelledby="st-account">
          <h2 id="st-account">Account</h2>
          {account && (
            <dl>
              <dt>Type</dt>
              <dd>{account.account_type}</dd>
              <dt>Activated</dt>
              <dd>{account.activated ? 'yes' : 'no'}</dd>
              <dt>Servers</dt>
              <dd>
                {account.servers.running} running, limit {account.servers.limit}
              </dd>
              <dt>Registered</dt>
              <dd>{when(account.registerdate)}</dd>
              <dt>Blocked ports</dt>
              <dd>
                TCP {account.blocked_ports.TCP.join(', ') || 'none'}; UDP{' '}
                {account.blocked_ports.UDP.join(', ') || 'none'}
              </dd>
            </dl>
          )}
          <h3>Recent activity</h3>
          <ListTable
            headers={['When', 'From', 'What']}
            rows={account?.activity}
            rowKey={(a, i) => `${a.timestamp}-${i}`}
          >
            {(a) => (
              <>
                <td>{when(a.timestamp)}</td>
                <td class="mono">{a.ip_address}</td>
                <td>{a.status}</td>
              </>
            )}
          </ListTable>
        </section>
      </div>
    </Page>
  );
}
