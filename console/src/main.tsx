// The console's entry: the shell (navigation, theme, who is signed in) and the routes.
// Routing lives in the URL's hash (#/servers/…), so Nubis serves one index.html at / and
// nothing else of the console's ever needs a server-side route.

import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { type Account, ApiError, api } from './api.ts';
import { AccountContext } from './account-context.ts';
import { session } from './session.ts';
import { applyTheme, systemPrefersDark } from './theme.ts';
import { currentPath, isAuthPath, Link, navigate, redirect, useRoute } from './router.tsx';
import { ActivatePage } from './pages/auth/activate.tsx';
import { CheckMailPage } from './pages/auth/check-mail.tsx';
import { LoginPage } from './pages/auth/login.tsx';
import { OperatorLoginPage } from './pages/auth/operator-login.tsx';
import { ResetPage } from './pages/auth/reset.tsx';
import { SignUpPage } from './pages/auth/sign-up.tsx';
import { ServerListPage } from './pages/servers/list.tsx';
import { CreateServerPage } from './pages/servers/create.tsx';
import { ServerPage } from './pages/server/page.tsx';
import { FloatingIpsPage } from './pages/floating-ips.tsx';
import { SnapshotsPage } from './pages/snapshots.tsx';
import { BackupsPage } from './pages/backups.tsx';
import { SshKeysPage } from './pages/ssh-keys.tsx';
import { TokensPage } from './pages/tokens.tsx';
import { VpcsPage } from './pages/vpcs.tsx';
import { BillingPage } from './pages/billing.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { OperatorApp } from './pages/operator/app.tsx';

function useSession(): { token: string | null; operator: string | null } {
  const [state, setState] = useState({ token: session.token(), operator: session.operator() });
  useEffect(() => session.subscribe(() => setState({ token: session.token(), operator: session.operator() })), []);
  return state;
}

const customerNav: [string, string][] = [
  ['/servers', 'Servers'],
  ['/snapshots', 'Snapshots'],
  ['/backups', 'Backups'],
  ['/floating-ips', 'Floating IPs'],
  ['/vpcs', 'VPCs'],
  ['/ssh-keys', 'SSH keys'],
  ['/tokens', 'Tokens'],
  ['/billing', 'Billing'],
  ['/settings', 'Settings'],
];

function CustomerApp(props: { path: string }) {
  const [account, setAccount] = useState<Account | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = async () => {
    try {
      const info = await api.accountInfo();
      setAccount(info);
      applyTheme(info.profile.dark_mode);
    } catch (e) {
      // A 401 signs the session out (api.ts); a 403 (a blocked account) is said at the top of every page.
      setProblem(e instanceof ApiError ? e.message : String(e));
    }
  };
  useEffect(() => {
    void refresh();
    const onProblem = (event: Event) => setProblem(String((event as CustomEvent).detail));
    addEventListener('nubis:account-problem', onProblem);
    return () => removeEventListener('nubis:account-problem', onProblem);
  }, []);
  const { path } = props;
  const parts = path.split('/').filter(Boolean);
  let page = null;
  if (parts[0] === 'servers' && parts[1] === 'new') page = <CreateServerPage />;
  else if (parts[0] === 'servers' && parts[1]) page = <ServerPage uuid={decodeURIComponent(parts[1])} />;
  else if (parts[0] === 'snapshots') page = <SnapshotsPage />;
  else if (parts[0] === 'backups') page = <BackupsPage />;
  else if (parts[0] === 'floating-ips') page = <FloatingIpsPage />;
  else if (parts[0] === 'vpcs') page = <VpcsPage />;
  else if (parts[0] === 'ssh-keys') page = <SshKeysPage />;
  else if (parts[0] === 'tokens') page = <TokensPage />;
  else if (parts[0] === 'billing') page = <BillingPage />;
  else if (parts[0] === 'settings') page = <SettingsPage />;
  else if (parts[0] === 'activate' && parts[1]) page = <ActivatePage uuid={decodeURIComponent(parts[1])} />;
  else page = <ServerListPage />;
  return (
    <AccountContext.Provider value={{ account, refresh }}>
      <div class="shell">
        <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
          Skip to content
        </button>
        <header class="top">
          <span class="brand">Nubis</span>
          <nav aria-label="Main">
            {customerNav.map(([to, label]) => (
              <Link key={to} to={to} current={path.startsWith(to)}>
                {label}
              </Link>
            ))}
          </nav>
          <span class="who">{account?.email}</span>
          <button
            type="button"
            onClick={() => {
              session.signOut();
              navigate('/login');
            }}
          >
            Log out
          </button>
        </header>
        {account && !account.activated && (
          <p class="banner" role="status">
            Your account is not activated yet: check your mail ({account.email}) for the activation link.
          </p>
        )}
        {problem && (
          <p class="banner error" role="alert">
            {problem}
          </p>
        )}
        <main id="main" tabIndex={-1}>
          {page}
        </main>
      </div>
    </AccountContext.Provider>
  );
}

function App() {
  useRoute();
  // The hash as it is now, not as of the last hashchange event: a sign-in that navigates and
  // stores its token in one go must not be redirected by a render that sees only the token.
  const { token, operator } = useSession();
  // Signed in at the bare address (a bookmark, a typed address, a mail's link) or on a
  // signed-out page: the servers, shown in this render. Setting location.hash here instead left
  // #app empty whenever its hashchange came before useRoute listened for it.
  if (token && isAuthPath(currentPath())) redirect('/servers');
  const path = currentPath();
  const parts = path.split('/').filter(Boolean);

  if (parts[0] === 'admin') {
    if (!operator) return <OperatorLoginPage />;
    return <OperatorApp path={path} />;
  }
  if (parts[0] === 'activate' && parts[1] && !token) return <ActivatePage uuid={decodeURIComponent(parts[1])} />;
  if (parts[0] === 'check-mail') return <CheckMailPage />;
  if (!token) {
    if (parts[0] === 'signup') return <SignUpPage />;
    if (parts[0] === 'reset') return <ResetPage />;
    return <LoginPage />;
  }
  return <CustomerApp key={token} path={path} />;
}

applyTheme(systemPrefersDark());
render(<App />, document.getElementById('app')!);
