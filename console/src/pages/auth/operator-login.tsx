// The operator's sign-in with the operator token (ADMIN_TOKEN), checked before it is kept.

import { useState } from 'preact/hooks';
import { ApiError, admin } from '../../api.ts';
import { session } from '../../session.ts';
import { Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { Link, navigate } from '../../router.tsx';
import { AuthFrame } from './frame.tsx';

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
