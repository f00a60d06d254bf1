import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { Link } from '../../router.tsx';
import { AuthFrame, pending } from './frame.tsx';

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
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="email"
          value={email}
          onValue={setEmail}
          errors={form.errors}
          required
        />
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
