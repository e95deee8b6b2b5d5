#!/usr/bin/python3
"""browser.py — one headless Chromium for many pages: each page's DOM once its scripts have run,
or its screenshot, through the DevTools protocol on a pipe (python3's standard library only).

Starting Chromium costs about 1.5 s of CPU; a page in a running one costs a tenth of that, so
scripts/gallery.sh (a PNG per chart) and the report tests open every page in one browser.

    browser.py [--timeout S] [--until JS] JOB...
                                         JOB: shot:WxH:URL:FILE.png  or  dom:WxH:URL:FILE
                                         (URL and FILE may hold ':'; FILE is what follows the
                                         last one)
Prints `ok KIND FILE` or `failed KIND FILE: WHY` per job; exits 0 when every job was done.

A page is taken once it has loaded and its <html> carries data-ready="1" (report.js and the
live page set it last, after drawing), or after --timeout seconds (10) when it never does: a
page without that script is taken as it is then, and the caller's own checks judge it.
--until JS: a page is ready only once the expression JS is true as well (the live page's
"data-live-updates >= 2": it has taken the run's section from the server twice).
Every page opens in one tab, after about:blank: two URLs that differ only in their #fragment
both load as a document of their own.
"""
import base64, json, os, select, shutil, subprocess, sys, tempfile, time

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--proxy-server=127.0.0.1:9",  # nothing leaves the machine: every fetch but file:// fails
         "--remote-debugging-pipe"]
READY = ("document.readyState === 'complete' && "
         "document.documentElement.getAttribute('data-ready') === '1'")


class BrowserError(Exception):
    pass


class Browser:
    """A headless Chromium spoken to over --remote-debugging-pipe: it reads commands on its
    fd 3 and writes replies and events on its fd 4, each a JSON text ended by a NUL byte."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="dg-chromium.")
        to_child, self.cmd_w = os.pipe()
        self.ev_r, from_child = os.pipe()

        # in the child, before it closes what it does not pass on: the two ends on 3 and 4,
        # where Chromium looks for them
        def fds():
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, "--user-data-dir=" + self.profile],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_child)
        os.close(from_child)
        self.buf = b""
        self.next_id = 0
        self.session = None  # the one tab's, made at the first page
        self.size = None

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.ev_r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _message(self, deadline):
        """The next message from Chromium, waiting until DEADLINE (time.monotonic)."""
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.ev_r], [], [], left)[0]:
                raise BrowserError("no answer from chromium in time")
            chunk = os.read(self.ev_r, 1 << 20)
            if not chunk:
                raise BrowserError("chromium ended (exit %s)" % self.proc.poll())
            self.buf += chunk
        text, self.buf = self.buf.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, params=None, session=None, timeout=30):
        """Sends one command and returns its result; events that come first are dropped."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        except OSError as e:
            raise BrowserError("chromium ended (%s)" % e) from None
        deadline = time.monotonic() + timeout
        while True:
            m = self._message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise BrowserError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})

    def page(self, url, width, height, timeout, until=None):
        """Opens URL in the browser's one tab at WIDTHxHEIGHT and returns its session once the
        page is ready (see the module's comment) or TIMEOUT seconds have passed. The tab goes
        to about:blank first, so each URL loads as a new document (two that differ only in
        their #fragment included) and nothing of the page before can pass for this one."""
        if self.session is None:
            tab = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": tab, "flatten": True})["sessionId"]
        s = self.session
        if self.size != (width, height):
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, s)
            self.size = (width, height)
        self.call("Page.navigate", {"url": "about:blank"}, s)
        nav = self.call("Page.navigate", {"url": url}, s)
        if nav.get("errorText"):
            raise BrowserError("%s: %s" % (url, nav["errorText"]))
        # one round trip: a promise in the page that settles when it is ready (checked every
        # 20 ms) or at the timeout; evaluated too early it may land in the document before,
        # whose end drops it: then asked again
        wait = ("new Promise(done => { const ready = () => location.href === %s && %s;"
                " if (ready()) return done(true);"
                " const t = setInterval(() => { if (ready()) { clearInterval(t); done(true); } }, 20);"
                " setTimeout(() => { clearInterval(t); done(false); }, %d); })"
                % (json.dumps(url), READY + (" && (%s)" % until if until else ""), int(timeout * 1000)))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                r = self.call("Runtime.evaluate", {"expression": wait, "awaitPromise": True, "returnByValue": True},
                              s, timeout=timeout + 5)
                if r.get("result", {}).get("value") is not None:
                    break
            except BrowserError:
                pass
            time.sleep(0.02)
        return s

    def evaluate(self, session, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        return r.get("result", {}).get("value")

    def dom(self, url, width, height, timeout=10, until=None):
        """The page's DOM as text, as --dump-dom prints it."""
        s = self.page(url, width, height, timeout, until)
        return self.evaluate(s, "document.documentElement.outerHTML") or ""

    def shot(self, url, width, height, png, timeout=10, until=None):
        """A PNG of the page's WIDTHxHEIGHT viewport, written to PNG."""
        s = self.page(url, width, height, timeout, until)
        data = self.call("Page.captureScreenshot", {"format": "png"}, s)["data"]
        with open(png, "wb") as f:
            f.write(base64.b64decode(data))


def parse_job(text):
    """shot:WxH:URL:FILE or dom:WxH:URL:FILE -> (kind, w, h, url, file); ValueError names the part."""
    kind, size, rest = (text.split(":", 2) + ["", ""])[:3]
    if kind not in ("shot", "dom"):
        raise ValueError("%r: the kind must be shot or dom" % text)
    try:
        w, h = (int(v) for v in size.split("x"))
    except ValueError:
        raise ValueError("%r: the size must be WIDTHxHEIGHT" % text) from None
    url, sep, out = rest.rpartition(":")
    if not sep or not url or not out:
        raise ValueError("%r: want KIND:WxH:URL:FILE" % text)
    return kind, w, h, url, out


def main(argv):
    timeout, until = 10.0, None
    while argv[:1] in (["--timeout"], ["--until"]) and len(argv) > 1:
        if argv[0] == "--timeout":
            timeout = float(argv[1])
        else:
            until = argv[1]
        argv = argv[2:]
    try:
        jobs = [parse_job(a) for a in argv]
    except ValueError as e:
        print("browser.py: " + str(e), file=sys.stderr)
        return 2
    if not jobs:
        print("usage: browser.py [--timeout S] [--until JS] shot:WxH:URL:FILE.png|dom:WxH:URL:FILE ...",
              file=sys.stderr)
        return 2
    failed = 0
    b = Browser()
    try:
        for kind, w, h, url, out in jobs:
            try:
                if kind == "shot":
                    b.shot(url, w, h, out, timeout, until)
                else:
                    with open(out, "w", encoding="utf-8") as f:
                        f.write(b.dom(url, w, h, timeout, until))
                print("ok %s %s" % (kind, out))
            except (BrowserError, OSError) as e:
                failed += 1
                print("failed %s %s: %s" % (kind, out, e))
                if b.proc.poll() is not None:  # the browser is gone: the rest cannot be done
                    b.close()
                    b = Browser()
    finally:
        b.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
