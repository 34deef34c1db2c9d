"""The teaching page in a real browser: Debian's chromium (headless) driven by python3-selenium through
chromium-driver.  Starts `mmp serve` on a shipped model and an image, loads the page, plans between two
points (clicks on the canvas), draws a demonstration (clicks in draw mode), teaches, and checks that the
cost overlay's pixels and the plan changed, that Save wrote a model `mmp info` loads with the
demonstration recorded, that an error from the server is shown in the page, and that a page on another
origin that POSTs to the server from the same browser is refused and changes nothing.

Before the browser, raw HTTP requests (http.client) check the server's guard against other web pages
(tools/serve/src/request_guard.hpp): a rebinding Host, a foreign Origin or Sec-Fetch-Site, a text/plain
body, a deeply nested body; and that a request is answered beside 40 connections that hold a worker each.

    /usr/bin/python3 tests/serve/test_serve_browser.py MMP_EXECUTABLE MODEL IMAGE [--screenshot PNG]
    /usr/bin/python3 tests/serve/test_serve_browser.py MMP_EXECUTABLE MODEL --make-scene build/bin/serve_test_scene

Exits 77 (CTest: skipped) with a message when chromium, chromium-driver or selenium is missing (after
the raw HTTP checks, which need none of them).
"""
import argparse
import functools
import http.client
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77


def skip(message):
    print(f"SKIPPED: {message}")
    sys.exit(SKIP)


def http_request(port, method, path, body=None, headers=None, timeout=60):
    """One request to the server at 127.0.0.1:port: (status, the JSON answer or None).  A "Host" in
    headers replaces the one http.client would send.  The timeout only keeps a hung server from hanging
    the test; nothing asserts how long an answer took."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, None
    finally:
        connection.close()


def expect_refusal(answer, status, *words):
    got, body = answer
    assert got == status, f"expected {status}, got {got}: {str(body)[:300]}"
    message = (body or {}).get("error", "")
    for word in words:
        assert word in message, f"the refusal '{message}' does not name {word!r}"
    print(f"  {status}: {message[:110]}")


def check_http_guard(port):
    """The rules of request_guard.hpp through the real HTTP layer."""
    own = f"127.0.0.1:{port}"
    json_type = {"Content-Type": "application/json"}
    print("raw HTTP checks:")
    # DNS rebinding: a page at http://127.0.0.1.evil.example:PORT/ sends its own name as Host
    for host in (f"127.0.0.1.evil.example:{port}", f"127.evil.example:{port}", "localhost.evil", f"127.0.0.1:{port}0000"):
        expect_refusal(http_request(port, "GET", "/api/session", headers={"Host": host}), 403, f"Host '{host}'")
    for host in (own, f"localhost:{port}", "127.255.0.1"):
        assert http_request(port, "GET", "/api/session", headers={"Host": host})[0] == 200, f"Host {host} refused"
    # A foreign page's POST: its Origin, or the browser's Sec-Fetch-Site, names it
    expect_refusal(http_request(port, "POST", "/api/undo", "{}", {"Origin": "http://evil.example", **json_type}), 403,
                   "Origin 'http://evil.example'", f"http://{own}")
    expect_refusal(http_request(port, "POST", "/api/save", "{}", {"Sec-Fetch-Site": "cross-site", **json_type}), 403,
                   "Sec-Fetch-Site 'cross-site'")
    # A body a form or a no-cors fetch can send without a preflight: not JSON by its type
    expect_refusal(http_request(port, "POST", "/api/undo", "{}", {"Content-Type": "text/plain;charset=UTF-8"}), 415,
                   "Content-Type 'text/plain;charset=UTF-8'", "application/json")
    # The page's own POST passes all three and reaches the API (nothing to undo yet: 409)
    own_post = {"Origin": f"http://{own}", "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json; charset=utf-8"}
    expect_refusal(http_request(port, "POST", "/api/undo", "{}", own_post), 409, "nothing to undo")
    # 100,000 nested arrays (200 KB, inside the 1 MiB bound) once overflowed the server's stack
    deep = '{"start": ' + "[" * 100000 + "]" * 100000 + ', "goal": [1, 1]}'
    expect_refusal(http_request(port, "POST", "/api/images/0/plan", deep, json_type), 400, "at most 16")
    assert http_request(port, "GET", "/api/session")[0] == 200, "the server stopped answering after a nested body"
    check_busy_connections(port)


def check_busy_connections(port):
    """40 connections that each hold one of the server's workers -- 20 silent ones, and 20 that send a
    request a byte at a time and go on doing so until the check ends -- and a request beside them is
    answered.  With cpp-httplib's defaults (8 workers) it never was while the trickling went on; nothing
    here depends on how fast the machine is (the trickle only has to beat the 5 s read timeout, and a
    late byte could only let a broken server pass)."""
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    for s in slow:
        s.sendall(f"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
    answered = threading.Event()

    def trickle():
        while not answered.is_set():
            for s in slow:
                try:
                    s.sendall(b"a")
                except OSError:
                    pass  # the server closed it (a late byte): it no longer holds a worker
            answered.wait(0.5)

    trickler = threading.Thread(target=trickle)
    trickler.start()
    try:
        status, _ = http_request(port, "GET", "/api/session", timeout=60)
    except TimeoutError:
        raise AssertionError("no answer beside 40 connections that hold a worker each: they hold every worker") from None
    finally:
        answered.set()
        trickler.join()
        for s in silent + slow:
            s.close()
    assert status == 200, f"the request beside 40 busy connections got {status}"
    print("  200: a request beside 40 connections that hold a worker each (20 silent, 20 trickling a byte at a time)")


def check_foreign_page(browser, port, log_path, work):
    """A page on another origin (http://localhost:OTHER/, served here) POSTs to the server from the same
    browser, as an attack would: a no-cors fetch with a text/plain body, which needs no preflight.  The
    server must see it, refuse it (403) and change nothing."""
    folder = os.path.join(work, "foreign")
    os.makedirs(folder)
    with open(os.path.join(folder, "index.html"), "w") as f:
        f.write("<!doctype html><title>another site</title><p>another site</p>")
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    foreign = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=folder))
    threading.Thread(target=foreign.serve_forever, daemon=True).start()
    try:
        before = http_request(port, "GET", "/api/session")[1]
        browser.get(f"http://localhost:{foreign.server_address[1]}/")
        sent = browser.execute_script(
            "return fetch(arguments[0], {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: arguments[1]})"
            ".then(() => 'sent', (e) => 'failed: ' + e)", f"http://127.0.0.1:{port}/api/undo", json.dumps({"revision": before["revision"]}))
        assert sent == "sent", f"the foreign page's fetch {sent}"
        deadline = time.time() + 30  # (the fetch has resolved: the log line is written before the answer is sent)
        while time.time() < deadline and "POST /api/undo" not in open(log_path).read():
            time.sleep(0.05)
        undo_lines = [line for line in open(log_path).read().splitlines() if line.startswith("POST /api/undo")]
        assert undo_lines and undo_lines[-1] == "POST /api/undo 403", f"the server logged {undo_lines[-1:]} for the foreign page's POST"
        after = http_request(port, "GET", "/api/session")[1]
        assert after["revision"] == before["revision"] and len(after["demonstrations"]) == len(before["demonstrations"]), \
            "the foreign page's POST changed the model"
        print("a foreign page's POST from the same browser: refused (403), the model unchanged")
    finally:
        foreign.shutdown()
        foreign.server_close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mmp")
    parser.add_argument("model")
    parser.add_argument("image", nargs="?", help="the image to serve (with --make-scene: written there)")
    parser.add_argument("--make-scene", help="a program that writes a synthetic scene to the path it is given (serve_test_scene)")
    parser.add_argument("--screenshot", help="write a screenshot of the page after teaching")
    parser.add_argument("--start", default="0.12,0.30", help="start as fractions of the image's width and height")
    parser.add_argument("--goal", default="0.88,0.70")
    args = parser.parse_args()

    # Without a browser the raw HTTP checks still run; the test is reported skipped after them.
    missing = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        missing = "python3-selenium is not installed (apt-get install python3-selenium chromium chromium-driver)"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not missing and (not chromium or not driver_path):
        missing = "chromium or chromium-driver is not installed (apt-get install chromium chromium-driver)"
    work = tempfile.mkdtemp(prefix="mmp-serve-browser-")
    if args.make_scene:
        args.image = os.path.join(work, "scene.png")
        subprocess.run([args.make_scene, args.image], check=True)
    if not args.image or not os.path.exists(args.image):
        shutil.rmtree(work, ignore_errors=True)
        skip(f"no image {args.image} (the shared data sets are not beside the checkout)")

    saved = os.path.join(work, "adapted.mmp")
    log_path = os.path.join(work, "server.log")  # one line a request: "METHOD PATH STATUS"
    with open(log_path, "w") as log:
        server = subprocess.Popen([args.mmp, "serve", "--model", args.model, "--images", args.image, "--port", "0",
                                   "--out", saved], stdout=subprocess.PIPE, stderr=log, text=True)
    browser = None
    try:
        url = None
        deadline = time.time() + 30
        while time.time() < deadline and url is None:
            line = server.stdout.readline()
            if not line:
                break
            if "open http://" in line:
                url = line.split("open ")[1].split()[0]
        if url is None:
            raise AssertionError(f"mmp serve did not start: {open(log_path).read()}")
        print(f"page at {url}")
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        check_http_guard(port)
        if missing:
            print("the raw HTTP checks passed; the browser part is skipped")
            skip(missing)

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900",
                     "--hide-scrollbars", "--force-device-scale-factor=1"):
            options.add_argument(flag)
        browser = webdriver.Chrome(service=Service(driver_path), options=options)
        browser.set_page_load_timeout(30)
        browser.get(url)
        wait = WebDriverWait(browser, 30, poll_frequency=0.05)
        js = browser.execute_script

        def settled():
            return js("return window.mmp && mmp.state.pictures.costs !== null && mmp.state.busy === 0")

        wait.until(lambda _: settled())
        size = js("return [mmp.state.image.width, mmp.state.image.height]")
        canvas = browser.find_element(By.ID, "canvas")
        box = js("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", canvas)

        def click_at(x, y):
            sx, sy = js("return mmp.screenOf(arguments[0], arguments[1])", x, y)
            # Selenium 4 offsets are from the element's centre
            ActionChains(browser).move_to_element_with_offset(canvas, int(sx - box[0] / 2), int(sy - box[1] / 2)).click().perform()

        def fraction(text):
            fx, fy = (float(v) for v in text.split(","))
            return fx * size[0], fy * size[1]

        digest_before = js("return mmp.overlayDigest()")
        # 1. plan: click the start, then the goal
        start, goal = fraction(args.start), fraction(args.goal)
        click_at(*start)
        click_at(*goal)
        wait.until(lambda _: js("return mmp.state.plan !== null && mmp.state.busy === 0"))
        plan_before = js("return mmp.state.plan")
        print(f"plan before teaching: cost {plan_before['cost']:.4g}, {plan_before['cells']} cells")
        assert plan_before["cells"] >= 2

        # 2. draw a demonstration that swings wide of the straight line between the ends, then teach
        browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=draw]").click()
        waypoints = [start, (start[0], goal[1]), goal]  # down, then across: an L the plan would not take
        for (ax, ay), (bx, by) in zip(waypoints, waypoints[1:]):
            for t in (0.0, 0.5):
                click_at(ax + t * (bx - ax), ay + t * (by - ay))
        click_at(*goal)
        drawn = js("return mmp.state.drawing.length")
        assert drawn >= 5, f"the drawing holds {drawn} points"
        browser.find_element(By.ID, "teach").click()
        wait.until(lambda _: js("return mmp.state.revision === 1 && mmp.state.busy === 0 && mmp.state.plan !== null"))
        wait.until(lambda _: js("return mmp.state.pictures.costs.revision === 1"))
        digest_after = js("return mmp.overlayDigest()")
        plan_after = js("return mmp.state.plan")
        print(f"plan after teaching: cost {plan_after['cost']:.4g}, {plan_after['cells']} cells")
        assert digest_after != digest_before, "the cost overlay's pixels did not change after teaching"
        assert plan_after["points"] != plan_before["points"] or abs(plan_after["cost"] - plan_before["cost"]) > 1e-9 * plan_before["cost"], \
            "the plan did not change after teaching"
        demos = js("return mmp.state.session.demonstrations")
        assert len(demos) == 1 and browser.find_element(By.ID, "demonstrations").text.strip(), "the list of demonstrations is empty"

        # an avoid mark drawn and taught: a linear model holds the marked cells' mean cost at least kAvoidMargin
        # (1.5) times the taught path's cells' (a hard constraint on these means; plans do not see the costs'
        # scale); a LEARCH model's new trees raise the marked ground (on the means of the log-costs) or say
        # they did not reach the margin; undo drops it
        stroke = [fraction("0.65,0.15"), fraction("0.8,0.15"), fraction("0.9,0.25")]
        mean_cost_js = ("return Promise.all(arguments[0].map(([x, y]) => fetch(`/api/images/0/cell?x=${x}&y=${y}`)"
                        ".then((r) => r.json()))).then((cells) => cells.map((c) => c.cost).filter((c) => c !== undefined))"
                        ".then((costs) => costs.reduce((a, b) => a + b, 0) / costs.length)")
        taught_points = js("return mmp.state.session.demonstrations[0].points")
        linear = js("return fetch('/api/session').then((r) => r.json()).then((s) => s.model.kind)") == "linear"
        browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=avoid]").click()
        for x, y in stroke:
            click_at(x, y)
        stroke_points = js("return mmp.state.drawing")
        ratio_before = js(mean_cost_js, stroke_points) / js(mean_cost_js, taught_points)
        browser.find_element(By.ID, "teach").click()
        wait.until(lambda _: js("return mmp.state.revision === 2 && mmp.state.busy === 0 && (mmp.state.session.marks || []).length === 1"))
        mark_points = js("return mmp.state.session.marks[0].points")
        ratio = js(mean_cost_js, mark_points) / js(mean_cost_js, taught_points)
        warnings = browser.find_element(By.ID, "teach-warnings").text
        if linear:
            assert ratio >= 1.5 * (1 - 1e-6), f"the marked cells cost {ratio:.4g} times the taught path's, below 1.5"
        else:
            assert ratio >= min(ratio_before, 1.5) * (1 - 1e-6) or "avoid mark" in warnings, \
                f"the marked cells cost {ratio:.4g} times the taught path's, {ratio_before:.4g} before the mark, and no warning"
        assert browser.find_element(By.ID, "demonstrations").text.count("avoid mark") == 1
        status = js("return fetch('/api/images/0/avoid.csv').then((r) => r.text().then((t) => [r.status, t]))")
        assert status[0] == 200 and status[1].startswith("path,x,y"), status
        print(f"avoid mark taught: its {len(mark_points)} cells cost {ratio:.3g} times the taught path's on average "
              f"({ratio_before:.3g} before it)")
        browser.find_element(By.ID, "undo").click()
        wait.until(lambda _: js("return mmp.state.revision === 3 && mmp.state.busy === 0 && mmp.state.session.marks.length === 0"))
        # a prefer mark over the same stroke: a linear model holds its cells' mean cost no dearer than the
        # taught path's; a LEARCH model's trees do not raise it; undo
        browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=prefer]").click()
        for x, y in stroke:
            click_at(x, y)
        assert browser.find_element(By.ID, "teach").text == "Teach prefer mark"
        ratio_before = js(mean_cost_js, js("return mmp.state.drawing")) / js(mean_cost_js, taught_points)
        browser.find_element(By.ID, "teach").click()
        wait.until(lambda _: js("return mmp.state.revision === 4 && mmp.state.busy === 0"))
        marks = js("return mmp.state.session.marks")
        assert len(marks) == 1 and marks[0]["kind"] == "prefer", marks
        ratio = js(mean_cost_js, marks[0]["points"]) / js(mean_cost_js, taught_points)
        warnings = browser.find_element(By.ID, "teach-warnings").text
        if linear:
            assert ratio <= 1 + 1e-6, f"the prefer-marked cells cost {ratio:.4g} times the taught path's, above 1"
        else:
            assert ratio <= max(ratio_before, 1.0) * (1 + 1e-6) or "prefer mark" in warnings, \
                f"the prefer-marked cells cost {ratio:.4g} times the taught path's, {ratio_before:.4g} before, and no warning"
        assert browser.find_element(By.ID, "demonstrations").text.count("prefer mark") == 1
        status = js("return fetch('/api/images/0/prefer.csv').then((r) => r.text().then((t) => [r.status, t]))")
        assert status[0] == 200 and status[1].startswith("path,x,y"), status
        print(f"prefer mark taught: its cells cost {ratio:.3g} times the taught path's on average ({ratio_before:.3g} before it)")
        browser.find_element(By.ID, "undo").click()
        wait.until(lambda _: js("return mmp.state.revision === 5 && mmp.state.busy === 0 && mmp.state.session.marks.length === 0"))
        js("mmp.state.drawing = []")
        browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=plan]").click()

        # before | after: the parent's overlay on its own scale is the overlay before teaching, pixel for
        # pixel, and the taught overlay is coloured on the same range
        browser.find_element(By.ID, "compare").click()
        wait.until(lambda _: js("return mmp.state.busy === 0 && mmp.state.pictures.parentCosts !== null && mmp.state.parentPlan !== null"))
        assert js("return mmp.overlayDigest('parentCosts')") == digest_before, "the parent's overlay is not the one before teaching"
        ranges = js("return [mmp.state.pictures.parentCosts.range, mmp.state.pictures.costs.range]")
        assert ranges[0] == ranges[1], f"the two overlays are on other scales: {ranges}"
        assert js("return mmp.overlayDigest('costs')") not in (digest_before, None), "the taught overlay is the parent's"
        plan_text = browser.find_element(By.ID, "plan-result").text
        assert "under the parent's costs" in plan_text and "the parent's plan" in plan_text, plan_text
        print(f"before | after on one scale {ranges[0]}; {plan_text.splitlines()[0]}")
        if args.screenshot:
            browser.save_screenshot(args.screenshot.replace(".png", "_compare.png"))
        browser.find_element(By.ID, "compare").click()
        wait.until(lambda _: js("return mmp.state.busy === 0 && !mmp.state.compare"))

        # 3. an error from the server is shown in the page: a plan from outside the image
        js("mmp.state.start = [-50, -50]; mmp.state.goal = [10, 10]; document.getElementById('planner').dispatchEvent(new Event('change'))")
        wait.until(lambda _: browser.find_element(By.ID, "error").is_displayed())
        error = browser.find_element(By.ID, "error-text").text
        assert "outside the image" in error, f"the page shows '{error}'"
        browser.find_element(By.ID, "error-close").click()
        js("mmp.state.start = arguments[0]; mmp.state.goal = arguments[1]; document.getElementById('planner').dispatchEvent(new Event('change'))",
           list(plan_after["points"][0]), list(plan_after["points"][-1]))
        wait.until(lambda _: js("return mmp.state.busy === 0 && mmp.state.plan !== null"))

        # 4. save, and the saved model loads in mmp info with the demonstration recorded
        browser.find_element(By.ID, "save").click()
        wait.until(lambda _: "saved" in browser.find_element(By.ID, "save-result").text)
        info = json.loads(subprocess.run([args.mmp, "info", saved, "--json"], check=True, capture_output=True, text=True).stdout)
        taught = info.get("adapted_demonstrations", "")
        assert taught and len(taught.strip().splitlines()) == 1, f"mmp info shows adapted_demonstrations = {taught!r}"
        print(f"saved {saved}: mmp info records 1 demonstration")
        # the page's downloads pass the request guard: fetched from the page as its Download buttons do
        for path in ("/api/model.mmp", "/api/images/0/demonstrations.csv", "/api/images/0/costmap.tif"):
            status = js("return fetch(arguments[0]).then((r) => r.blob().then(() => r.status))", path)
            assert status == 200, f"the page's download {path} answered {status}"

        if args.screenshot:
            # the page as a user leaves it: the plan after teaching, the demonstration, hover read-out
            sx, sy = js("return mmp.screenOf(arguments[0], arguments[1])", size[0] * 0.5, size[1] * 0.5)
            ActionChains(browser).move_to_element_with_offset(canvas, int(sx - box[0] / 2), int(sy - box[1] / 2)).perform()
            time.sleep(0.3)
            browser.save_screenshot(args.screenshot)
            print(f"wrote {args.screenshot}")

        # 5. zoomed in on the image's left half, a box kept for checking dragged over the view's top left
        # quarter: Suggest keeps both ends of every pair in view and out of the box
        scale = 2.0 * box[0] / size[0]
        js("mmp.state.view = {scale: arguments[0], x: 0, y: 0}", scale)
        visible = (box[0] / scale, box[1] / scale)
        browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=exclude]").click()
        corner = (visible[0] * 0.05, visible[1] * 0.05)
        far = (visible[0] * 0.5, visible[1] * 0.5)
        sx0, sy0 = js("return mmp.screenOf(arguments[0], arguments[1])", *corner)
        sx1, sy1 = js("return mmp.screenOf(arguments[0], arguments[1])", *far)
        ActionChains(browser).move_to_element_with_offset(canvas, int(sx0 - box[0] / 2), int(sy0 - box[1] / 2)).click_and_hold() \
            .move_by_offset(int((sx1 - sx0) / 2), int((sy1 - sy0) / 2)).move_by_offset(int((sx1 - sx0) / 2), int((sy1 - sy0) / 2)) \
            .release().perform()
        kept = js("return mmp.state.excluded[0] || []")
        assert len(kept) == 1, f"the dragged box was not kept: {kept}"
        x0, y0, x1, y1 = kept[0]
        assert x1 - x0 > visible[0] * 0.3 and y1 - y0 > visible[1] * 0.3, f"the box {kept[0]} is not the one dragged"
        if args.screenshot:
            browser.save_screenshot(args.screenshot.replace(".png", "_boxes.png"))
        browser.find_element(By.ID, "suggest").click()
        wait.until(lambda _: js("return mmp.state.busy === 0 && mmp.state.suggestions.length > 0"))
        pairs = js("return mmp.state.suggestions")
        cell = js("return mmp.state.session.cell_size || 0") or 0
        for pair in pairs:
            for x, y in (pair["start"], pair["goal"]):
                assert x <= visible[0] + 4 and y <= visible[1] + 4, f"suggested end ({x}, {y}) outside the view {visible}"
                assert not (x0 + cell < x < x1 - cell and y0 + cell < y < y1 - cell), f"suggested end ({x}, {y}) inside the box {kept[0]}"
        print(f"suggest in view (x < {visible[0]:.0f}) and out of the box kept for checking: {len(pairs)} pair(s)")
        browser.find_element(By.ID, "clear-boxes").click()
        assert js("return (mmp.state.excluded[0] || []).length") == 0
        browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=plan]").click()
        js("mmp.fitView()")

        # 6. a page on another origin, in the same browser, cannot undo the teaching (after the screenshot: it leaves the page)
        check_foreign_page(browser, port, log_path, work)
        print("browser test passed")
    finally:
        if browser is not None:
            browser.quit()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
