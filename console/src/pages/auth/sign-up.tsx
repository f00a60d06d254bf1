// Signing up: the account's owner, country and acceptance of the terms; then the check-your-mail page.

import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { session } from '../../session.ts';
import { Checkbox, Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { Link, navigate } from '../../router.tsx';
import { AuthFrame, EmailField, pending } from './frame.tsx';

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
      pending.email = email;
      session.signIn(token);
      navigate('/check-mail');
    });
  return (
    <AuthFrame title="Sign up">
      <Form onSubmit={submit} label="Sign up">
        <EmailField value={email} onValue={setEmail} errors={form.errors} />
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
