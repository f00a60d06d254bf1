// The server list: live state by polling, windowed so thousands of rows scroll smoothly, with a filter.

import { useMemo, useRef, useState } from 'preact/hooks';
import { api, type Server } from '../../api.ts';
import { ConditionBadges, conditionMark, money, PowerBadge } from '../../format.tsx';
import { ErrorLine, Field } from '../../forms.tsx';
import { Page } from '../../page.tsx';
import { Link } from '../../router.tsx';
import { useLoad } from '../../use-load.ts';

const POLL_MS = 2000;
const ROW_HEIGHT = 44;
const OVERSCAN = 10;

function primaryAddress(server: Server): string {
  return server.iface?.v4?.[0]?.address ?? '–';
}

export function ServerListPage() {
  const servers = useLoad(() => api.servers(), [], POLL_MS);
  const [filter, setFilter] = useState('');
  const list = useMemo(() => {
    const all = servers.data?.servers ?? [];
    const needle = filter.trim().toLowerCase();
    return needle
      ? all.filter((s) =>
          `${s.name} ${s.info.hostname ?? ''} ${primaryAddress(s)} ${s.power} ${s.conditions.map(conditionMark).join(' ')}`
            .toLowerCase()
            .includes(needle),
        )
      : all;
  }, [servers.data, filter]);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const scroller = useRef<HTMLElement>(null);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(list.length, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  const visible = list.slice(first, last);

  return (
    <Page
      title="Servers"
      actions={
        <a class="button primary" href="#/servers/new">
          Create server
        </a>
      }
    >
      <ErrorLine error={servers.error} />
      <div class="toolbar">
        <Field
          label="Filter servers"
          name="filter"
          value={filter}
          onValue={setFilter}
          placeholder="name, address or state"
        />
        <p class="muted" aria-live="polite">
          {servers.data ? `${list.length} of ${servers.data.servers.length} servers` : 'Loading…'}
        </p>
      </div>
      {servers.data && servers.data.servers.length === 0 && (
        <p class="empty">
          No servers yet. <Link to="/servers/new">Create your first server</Link>.
        </p>
      )}
      {list.length > 0 && (
        <section
          class="table-scroll"
          ref={scroller}
          aria-label="Server list"
          onScroll={(event) => {
            setScrollTop(event.currentTarget.scrollTop);
            setViewport(event.currentTarget.clientHeight);
          }}
        >
          <table class="servers" aria-rowcount={list.length + 1}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Address</th>
                <th scope="col">Region</th>
                <th scope="col">Plan</th>
                <th scope="col">Price / month</th>
              </tr>
            </thead>
            <tbody>
              {first > 0 && <tr class="spacer" style={{ height: `${first * ROW_HEIGHT}px` }} />}
              {visible.map((server, index) => (
                <tr key={server.uuid} aria-rowindex={first + index + 2} style={{ height: `${ROW_HEIGHT}px` }}>
                  <td>
                    <Link to={`/servers/${server.uuid}`}>{server.name}</Link>
                  </td>
                  <td>
                    <PowerBadge power={server.power} />
                    <ConditionBadges conditions={server.conditions} />
                  </td>
                  <td class="mono">{primaryAddress(server)}</td>
                  <td>{server.info.region ?? server.info.reg_city}</td>
                  <td>{server.info.plan}</td>
                  <td>{money(server.price)}</td>
                </tr>
              ))}
              {last < list.length && <tr class="spacer" style={{ height: `${(list.length - last) * ROW_HEIGHT}px` }} />}
            </tbody>
          </table>
        </section>
      )}
    </Page>
  );
}
