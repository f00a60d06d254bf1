// Asking for a temporary password (the API does not say whether the address has an account).

import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { Form, FormStatus, useForm } from '../../forms.tsx';
import { Link } from '../../router.tsx';
import { AuthFrame, EmailField, pending } from './frame.tsx';

export function ResetPage() {
  const form = useForm();
  const [email, setEmail] = useState('');
  const submit = () =>
    form.run(async () => {
      await api.reset(email);
      pending.email = email;
    }, 'If the address has an account, a temporary password is on its way: log in with it, then set a new password in Settings.');
  return (
    <AuthFrame title="Reset password">
      <Form onSubmit={submit} label="Reset password">
        <EmailField value={email} onValue={setEmail} errors={form.errors} />
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy}>
          Send a temporary password
        </button>
      </Form>
      <p class="links">
        <Link to="/login">Back to log in</Link>
      </p>
    </AuthFrame>
  );
}
