// The operator's console, signed in with the operator token (ADMIN_TOKEN): its navigation and
// pages — accounts, servers across accounts, hosts, the mail outbox, the clock and the audit log.

import { session } from '../../session.ts';
import { Link, navigate } from '../../router.tsx';
import { AccountsPage } from './accounts.tsx';
import { AccountPage } from './account.tsx';
import { ServersPage } from './servers.tsx';
import { HostsPage } from './hosts.tsx';
import { OutboxPage } from './outbox.tsx';
import { ClockPage } from './clock.tsx';
import { AuditPage } from './audit.tsx';

const nav: [string, string][] = [
  ['/admin/accounts', 'Accounts'],
  ['/admin/servers', 'Servers'],
  ['/admin/hosts', 'Hosts'],
  ['/admin/outbox', 'Outbox'],
  ['/admin/clock', 'Clock'],
  ['/admin/audit', 'Audit log'],
];

export function OperatorApp(props: { path: string }) {
  const parts = props.path.split('/').filter(Boolean);
  let page = null;
  if (parts[1] === 'accounts' && parts[2]) page = <AccountPage account={decodeURIComponent(parts[2])} />;
  else if (parts[1] === 'servers') page = <ServersPage />;
  else if (parts[1] === 'hosts') page = <HostsPage />;
  else if (parts[1] === 'outbox') page = <OutboxPage />;
  else if (parts[1] === 'clock') page = <ClockPage />;
  else if (parts[1] === 'audit') page = <AuditPage />;
  else page = <AccountsPage />;
  return (
    <div class="shell operator">
      <header class="top">
        <span class="brand">Nubis operator</span>
        <nav aria-label="Operator">
          {nav.map(([to, label]) => (
            <Link key={to} to={to} current={props.path.startsWith(to)}>
              {label}
            </Link>
          ))}
        </nav>
        <span class="who" />
        <button
          type="button"
          onClick={() => {
            session.operatorOut();
            navigate('/login');
          }}
        >
          Sign out operator
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}
