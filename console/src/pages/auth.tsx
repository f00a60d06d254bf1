// Signing up, activating, logging in, resetting a password, and the operator's sign-in.
// Register, login, activate and reset always answer success (the API does not say whether an
// account exists), so a login is confirmed by asking for the account with the token it gave.

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, admin, api } from '../api.ts';
import { session } from '../session.ts';
import { Checkbox, Field, Form, FormStatus, useForm } from '../forms.tsx';
import { Link, navigate } from '../router.tsx';

function AuthFrame(props: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Nubis`;
  }, [props.title]);
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">Nubis</p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}

let pendingEmail = '';

export function LoginPage() {
  const form = useForm();
  const [email, setEmail] = useState(pendingEmail);
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
        <Field
          label="Email"
          name="email"
          type="email"
          autocomplete="username"
          value={email}
          onValue={setEmail}
          errors={form.errors}
          required
        />
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

export function SignUpPage() {
  const form = useForm();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [firstname, setFirstname] = useState('');
  const [lastname, setLastname] = useState('');
  const [country, setCountry] = useState('');
  const [acceptTos, setAcceptTos] = useState(false);
  const submit = () =>
    form.run(async () => {
      const { token } = await api.register({ email, password, firstname, lastname, country, accept_tos: acceptTos });
      pendingEmail = email;
      session.signIn(token);
      navigate('/check-mail');
    });
  return (
    <AuthFrame title="Sign up">
      <Form onSubmit={submit} label="Sign up">
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
        <Field
          label="Password"
          name="password"
          type="password"
          autocomplete="new-password"
          value={password}
          onValue={setPassword}
          errors={form.errors}
          required
        />
        <div class="row">
          <Field
            label="First name"
            name="firstname"
            autocomplete="given-name"
            value={firstname}
            onValue={setFirstname}
            errors={form.errors}
            required
          />
          <Field
            label="Last name"
            name="lastname"
            autocomplete="family-name"
            value={lastname}
            onValue={setLastname}
            errors={form.errors}
            required
          />
        </div>
        <Field
          label="Country"
          name="country"
          autocomplete="country"
          value={country}
          onValue={(value) => setCountry(value.toUpperCase())}
          errors={form.errors}
          hint="Two-letter code of your legal residence, e.g. DE or US."
          required
        />
        <Checkbox
          label="I accept the terms of service"
          name="accept_tos"
          checked={acceptTos}
          onChecked={setAcceptTos}
          errors={form.errors}
        />
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy}>
          Sign up
        </button>
      </Form>
      <p class="links">
        Already have an account? <Link to="/login">Log in</Link>
      </p>
    </AuthFrame>
  );
}

export function CheckMailPage() {
  return (
    <AuthFrame title="Check your mail">
      <p>
        We sent an activation link to <strong>{pendingEmail || 'your e-mail address'}</strong>. Open it to activate your
        account; until then you can look around, but not create anything.
      </p>
      <p class="links">
        <Link to="/servers">Continue to the console</Link>
      </p>
    </AuthFrame>
  );
}

export function ActivatePage(props: { uuid: string }) {
  const form = useForm();
  useEffect(() => {
    void form.run(() => api.activate(props.uuid), 'Your account is activated.');
  }, [props.uuid]);
  return (
    <AuthFrame title="Activate your account">
      {form.busy && <p role="status">Activating…</p>}
      <FormStatus form={form} />
      <p class="links">
        {session.token() ? <Link to="/servers">Continue to the console</Link> : <Link to="/login">Log in</Link>}
      </p>
    </AuthFrame>
  );
}

export function ResetPage() {
  const form = useForm();
  const [email, setEmail] = useState('');
  const submit = () =>
    form.run(async () => {
      await api.reset(email);
      pendingEmail = email;
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

export function OperatorLoginPage() {
  const form = useForm();
  const [token, setToken] = useState('');
  const submit = () =>
    form.run(async () => {
      try {
        await admin.check(token);
      } catch (e) {
        if (e instanceof ApiError && (e.status === 401 || e.status === 403))
          throw new ApiError(e.status, 'That is not the operator token (ADMIN_TOKEN), or the operator API is off.', {
            token: e.message,
          });
        throw e;
      }
      session.operatorIn(token);
      navigate('/admin/accounts');
    });
  return (
    <AuthFrame title="Operator sign-in">
      <Form onSubmit={submit} label="Operator sign-in">
        <Field
          label="Operator token"
          name="token"
          type="password"
          autocomplete="off"
          value={token}
          onValue={setToken}
          errors={form.errors}
          hint="The server's ADMIN_TOKEN."
          required
        />
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy}>
          Sign in as operator
        </button>
      </Form>
      <p class="links">
        <Link to="/login">Customer log in</Link>
      </p>
    </AuthFrame>
  );
}
