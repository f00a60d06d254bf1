// Opening the activation mail's link: the account is activated with its uuid.

import { useEffect } from 'preact/hooks';
import { api } from '../../api.ts';
import { session } from '../../session.ts';
import { FormStatus, useForm } from '../../forms.tsx';
import { Link } from '../../router.tsx';
import { AuthFrame } from './frame.tsx';

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
