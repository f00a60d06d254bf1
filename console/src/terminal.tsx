// A machine's console in the page: xterm.js on Nubis's console WebSocket. The token travels as
// a subprotocol (a browser cannot set headers on a WebSocket); keystrokes go out as binary
// frames, the window size as a JSON text frame; Nubis closes the socket with a reason that is
// shown here (no machine behind the server, stopped, the token removed…).

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

const base64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

export function TerminalPanel(props: {
  /** The WebSocket path: /v1.3/server/console/<uuid> or /admin/servers/<uuid>/console. */
  path: string;
  token: string;
  kind: 'customer' | 'operator';
  title: string;
  onClose: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const [status, setStatus] = useState('Connecting…');
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let stop = () => {};
    let cancelled = false;
    // xterm.js is loaded with the first console, not with every page.
    void Promise.all([import('@xterm/xterm'), import('@xterm/addon-fit')]).then(([xterm, addon]) => {
      if (!cancelled) stop = connect(element, xterm.Terminal, addon.FitAddon);
    });
    return () => {
      cancelled = true;
      stop();
    };
  }, [props.path, props.token, props.kind]);

  function connect(
    element: HTMLDivElement,
    Term: typeof Terminal,
    Fit: typeof import('@xterm/addon-fit').FitAddon,
  ): () => void {
    const css = getComputedStyle(document.documentElement);
    const terminal = new Term({
      cursorBlink: true,
      fontSize: 14,
      convertEol: false,
      scrollback: 2000,
      theme: { background: '#0b0d12', foreground: '#e8eaf0', cursor: css.getPropertyValue('--accent').trim() },
    });
    const fit = new Fit();
    terminal.loadAddon(fit);
    terminal.open(element);
    fit.fit();
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${props.path}`;
    const socket = new WebSocket(url, [
      'nubis.console',
      `${props.kind === 'operator' ? 'operator' : 'bearer'}.${base64url(props.token)}`,
    ]);
    socket.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    const sendSize = () => {
      if (socket.readyState === WebSocket.OPEN)
        socket.send(JSON.stringify({ resize: { cols: terminal.cols, rows: terminal.rows } }));
    };
    // A fresh prompt: the one printed at boot went before anyone was watching. A machine that
    // only just booted may start its getty after this Enter (and drop it): pressed again every
    // 2 s, at most 5 times, until the console says anything.
    let answered = false;
    let presses = 0;
    const nudge = setInterval(() => {
      if (answered || presses >= 5 || socket.readyState !== WebSocket.OPEN) return clearInterval(nudge);
      presses++;
      socket.send(encoder.encode('\r'));
    }, 2000);
    socket.onopen = () => {
      setStatus('Connected. This is the machine’s own console: log in as on a screen attached to it.');
      sendSize();
      presses++;
      socket.send(encoder.encode('\r'));
      terminal.focus();
    };
    socket.onmessage = (event) => {
      answered = true;
      terminal.write(new Uint8Array(event.data as ArrayBuffer));
    };
    socket.onclose = (event) => {
      setEnded(true);
      // Nothing more to type: the terminal keeps its text but no longer takes the keyboard (nor Tab).
      terminal.options.disableStdin = true;
      terminal.textarea?.setAttribute('tabindex', '-1');
      if (element.contains(document.activeElement)) closeButton.current?.focus();
      setStatus(event.reason ? `The console closed: ${event.reason}.` : 'The console closed.');
    };
    // The terminal keeps Tab (the shell completes with it); Ctrl+] leaves it, as telnet's escape does.
    terminal.attachCustomKeyEventHandler((event) => {
      if (event.type === 'keydown' && event.ctrlKey && event.key === ']') {
        closeButton.current?.focus();
        return false;
      }
      return true;
    });
    const typed = terminal.onData((data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
    });
    const resized = terminal.onResize(sendSize);
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    return () => {
      clearInterval(nudge);
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.close();
      terminal.dispose();
    };
  }
  return (
    <section class="card terminal-panel" aria-labelledby="terminal-title">
      <div class="row spread">
        <h2 id="terminal-title">{props.title}</h2>
        <button type="button" ref={closeButton} onClick={props.onClose}>
          Close console
        </button>
      </div>
      <p role="status" class={ended ? 'muted' : undefined}>
        {status}
      </p>
      <p class="muted">Ctrl+] leaves the terminal for the keyboard; Tab stays with the shell.</p>
      <div ref={box} class="terminal" role="application" aria-label={`${props.title}: terminal`} />
    </section>
  );
}
