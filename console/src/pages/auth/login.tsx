// Logging in. Login answers success whether or not the account exists, so a login is confirmed
// by asking for the account with the token it gave.

import { useState } from 'preact/hooks';
import { ApiError, api } from '../../api.ts';
import { session } from '../../session.ts';
import { Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { Link } from '../../router.tsx';
import { AuthFrame, EmailField, pending } from './frame.tsx';

export function LoginPage() {
  const form = useForm();
  const [email, setEmail] = useState(pending.email);
  const [password, setPassword] = useState('');
  const [notice] = useState(session.takeNotice());
  const submit = () =>
    form.run(async () => {
      const { token } = await api.login(email, password);
      try {
        await api.accountInfo(token);
      } catch (e) {
        if (e instanceof ApiError && e.status === 401)
          throw new ApiError(401, 'The e-mail or password is wrong, or the account is blocked.');
        throw e;
      }
      // A deep link asked for while signed out is shown once signed in; App redirects the rest.
      session.signIn(token);
    });
  return (
    <AuthFrame title="Log in">
      {notice && <p role="status">{notice}</p>}
      <Form onSubmit={submit} label="Log in">
        <EmailField value={email} onValue={setEmail} errors={form.errors} signIn />
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
          errors={form.errors}
          hint="A temporary password from a reset mail works here too."
          required
        />
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy}>
          Log in
        </button>
      </Form>
      <p class="links">
        <Link to="/signup">Create an account</Link> · <Link to="/reset">Forgot your password?</Link> ·{' '}
        <Link to="/admin">Operator sign-in</Link>
      </p>
    </AuthFrame>
  );
}
