// After signing up: the activation link is in the mail.

import { Link } from '../../router.tsx';
import { AuthFrame, pending } from './frame.tsx';

export function CheckMailPage() {
  return (
    <AuthFrame title="Check your mail">
      <p>
        We sent an activation link to <strong>{pending.email || 'your e-mail address'}</strong>. Open it to activate
        your account; until then you can look around, but not create anything.
      </p>
      <p class="links">
        <Link to="/servers">Continue to the console</Link>
      </p>
    </AuthFrame>
  );
}
