#!/usr/bin/env python3
"""Renders a fieldpack report page in headless Chromium and checks it as a reader would see it.

    Tests/Report/check-report.py REPORT.html SCREENSHOT.png

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in, fd 4
out, NUL-terminated JSON; the standard library is enough) and checks that:
  - the page loads, with no console error, no exception and no failed load;
  - it fetches nothing (every request is the page itself: it is self-contained) and has no script;
  - every chart (svg.chart) has a non-zero size, and its pixels in a screenshot of just that
    area are not blank (a PNG decoded here with zlib);
  - no table is wider than its card, no one-word table header or short value is broken mid-word, and the page
    does not scroll sideways;
at a desktop's width (1000 px), then at a phone's (390 px, the app's), where a table may be wider
than its card and scroll inside it but the page still never scrolls sideways; then keeps a
full-page screenshot of each at SCREENSHOT.png and SCREENSHOT-phone.png for people to look at.

Without Chromium it says what was not judged and exits 0, or 1 when CI=true.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

VIEWPORT_WIDTH = 1000
PHONE_WIDTH = 390


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """One Chromium process and its DevTools pipe."""

    def __init__(self, executable, profile):
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def wire():
            # Through fresh numbers first: a pipe end may itself be 3 or 4, and dup2 onto itself
            # would keep its close-on-exec flag.
            inbound, outbound = os.dup(commands_read), os.dup(replies_write)
            os.dup2(inbound, 3)
            os.dup2(outbound, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--mute-audio", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=wire, close_fds=False)
        os.close(commands_read)
        os.close(replies_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe: " + self.stderr_tail())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method, session):
        for index, event in enumerate(self.events):
            if event.get("method") == method and event.get("sessionId") == session:
                return self.events.pop(index)
        while True:
            event = self.receive()
            if event.get("method") == method and event.get("sessionId") == session:
                return event
            self.events.append(event)

    def stderr_tail(self):
        self.process.kill()
        return (self.process.stderr.read() or b"").decode(errors="replace")[-2000:]

    def close(self):
        try:
            os.write(self.commands, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def decode_png(data):
    """Width, height, channels and the unfiltered rows of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat = 8, b""
    width = height = channels = None
    while position < len(data):
        length = int.from_bytes(data[position:position + 4], "big")
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            depth, color, interlace = body[8], body[9], body[12]
            if depth != 8 or color not in (2, 6) or interlace != 0:
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}, interlace {interlace}")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                row[i] = (row[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(row)
        previous = row
    return width, height, channels, rows


def ink_share(png):
    """The share of pixels that differ from the most common colour (the background)."""
    width, height, channels, rows = decode_png(png)
    counts = {}
    for row in rows:
        for x in range(0, width * channels, channels):
            pixel = bytes(row[x:x + 3])
            counts[pixel] = counts.get(pixel, 0) + 1
    background = max(counts.values())
    return 1 - background / (width * height), len(counts)


PAGE_FACTS = """JSON.stringify({
  scripts: document.scripts.length,
  title: document.title,
  sections: document.querySelectorAll('section').length,
  width: Math.ceil(document.documentElement.scrollWidth),
  viewport: document.documentElement.clientWidth,
  overflowing: Array.from(document.querySelectorAll('table')).filter(function (table) {
    return table.getBoundingClientRect().width > table.parentElement.clientWidth + 1;
  }).map(function (table) {
    var heading = table.closest('section') && table.closest('section').querySelector('h2');
    return {section: heading ? heading.textContent : '?', width: Math.round(table.getBoundingClientRect().width),
            room: table.parentElement.clientWidth};
  }),
  broken: Array.from(document.querySelectorAll('th, td')).filter(function (cell) {
    // A header, or a short value, of one word drawn on more than one line was broken
    // mid-word ("outc/ome", "rejec/ted"); a long one (a file's path) may wrap.
    var text = cell.textContent.trim();
    if (!text || /\s/.test(text) || (cell.tagName === 'TD' && text.length > 12)) { return false; }
    var range = document.createRange();
    range.selectNodeContents(cell);
    return range.getClientRects().length > 1;
  }).map(function (cell) { return cell.textContent.trim(); }),
  height: Math.ceil(document.documentElement.scrollHeight),
  charts: Array.from(document.querySelectorAll('svg.chart')).map(function (svg) {
    var box = svg.getBoundingClientRect();
    return {label: (svg.querySelector('title') || svg).textContent, x: box.left + window.scrollX, y: box.top + window.scrollY,
            width: box.width, height: box.height, marks: svg.querySelectorAll('rect').length};
  })
})"""


def check(report, screenshot, width=VIEWPORT_WIDTH, phone=False):
    page_url = "file://" + os.path.abspath(report)
    problems = []
    with tempfile.TemporaryDirectory(prefix="fieldpack-chromium-") as profile:
        browser = DevTools(find_chromium(), profile)
        try:
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                browser.send(f"{domain}.enable", session=session)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": phone}, session=session)
            navigated = browser.send("Page.navigate", {"url": page_url}, session=session)
            if navigated.get("errorText"):
                problems.append(f"the page did not load: {navigated['errorText']}")
            else:
                browser.wait_for("Page.loadEventFired", session)
            facts = json.loads(browser.send("Runtime.evaluate", {"expression": PAGE_FACTS, "returnByValue": True},
                                            session=session)["result"]["value"])
            for chart in facts["charts"]:
                name = chart["label"]
                if chart["width"] <= 0 or chart["height"] <= 0:
                    problems.append(f"chart \"{name}\" has no size ({chart['width']} x {chart['height']})")
                    continue
                shot = browser.send("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": chart["x"], "y": chart["y"], "width": chart["width"], "height": chart["height"], "scale": 0.5},
                }, session=session)
                share, colours = ink_share(base64.b64decode(shot["data"]))
                if share < 0.003 or colours < 2:
                    problems.append(f"chart \"{name}\" renders blank ({share:.2%} of its pixels drawn)")
            full = browser.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": facts["width"], "height": facts["height"], "scale": 1},
            }, session=session)
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            with open(screenshot + ".tmp", "wb") as out:
                out.write(base64.b64decode(full["data"]))
            os.replace(screenshot + ".tmp", screenshot)
        finally:
            browser.close()
    for event in browser.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            problems.append("exception: " + params.get("exceptionDetails", {}).get("text", "?"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            problems.append("console error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            problems.append("error logged: " + params["entry"].get("text", "?"))
        elif method == "Network.requestWillBeSent" and params.get("request", {}).get("url") != page_url:
            problems.append("fetches " + params["request"]["url"] + ": the page must be self-contained")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            problems.append("a load failed: " + params.get("errorText", "?"))
    if facts["scripts"]:
        problems.append(f"the page has {facts['scripts']} script element(s); it must have none")
    if not facts["charts"]:
        problems.append("the page has no chart (svg.chart)")
    # Long names (dump files named by their date, with underscores) must wrap, not push a
    # table's columns off its card and the page sideways.
    for table in ([] if phone else facts["overflowing"]):
        problems.append(f"a table in \"{table['section']}\" is {table['width']} px wide in {table['room']} px: its columns run off the card")
    for header in facts["broken"]:
        problems.append(f"the table cell \"{header}\" is broken mid-word: its column was squeezed narrower than the word")
    if facts["width"] > facts["viewport"]:
        problems.append(f"the page is {facts['width']} px wide in a {facts['viewport']} px window: it scrolls sideways")
    return facts, problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check-report.py REPORT.html SCREENSHOT.png")
    report, screenshot = sys.argv[1], sys.argv[2]
    if not find_chromium():
        message = f"{report}: not checked in a browser: Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            sys.exit(f"error: {message}")
        print(f"warning: {message}; skipped", file=sys.stderr)
        return
    if not os.path.isfile(report):
        sys.exit(f"{report}: error: no such report (run make bundle)")
    root, extension = os.path.splitext(screenshot)
    facts, problems = check(report, screenshot)
    phone_screenshot = f"{root}-phone{extension}"
    phone, phone_problems = check(report, phone_screenshot, PHONE_WIDTH, phone=True)
    problems += [f"at {PHONE_WIDTH} px: {problem}" for problem in phone_problems]
    for problem in problems:
        print(f"{report}: error: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"{report}: renders in Chromium without errors: {facts['sections']} sections, "
          f"{len(facts['charts'])} charts drawn, nothing fetched; screenshot {screenshot} "
          f"({facts['width']} x {facts['height']} px), and at {PHONE_WIDTH} px {phone_screenshot} ({phone['width']} x {phone['height']} px)")


if __name__ == "__main__":
    main()
