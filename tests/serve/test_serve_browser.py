"""The teaching page in a real browser: Debian's chromium (headless) driven by python3-selenium through
chromium-driver.  Starts `mmp serve` on a shipped model and an image, loads the page, plans between two
points (clicks on the canvas), draws a demonstration (clicks in draw mode), teaches, and checks that the
cost overlay's pixels and the plan changed, that Save wrote a model `mmp info` loads with the
demonstration recorded, and that an error from the server is shown in the page.

    /usr/bin/python3 tests/serve/test_serve_browser.py MMP_EXECUTABLE MODEL IMAGE [--screenshot PNG]
    /usr/bin/python3 tests/serve/test_serve_browser.py MMP_EXECUTABLE MODEL --make-scene build/bin/serve_test_scene

Exits 77 (CTest: skipped) with a message when chromium, chromium-driver or selenium is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(message):
    print(f"SKIPPED: {message}")
    sys.exit(SKIP)


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

    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        skip("python3-selenium is not installed (apt-get install python3-selenium chromium chromium-driver)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        skip("chromium or chromium-driver is not installed (apt-get install chromium chromium-driver)")
    work = tempfile.mkdtemp(prefix="mmp-serve-browser-")
    if args.make_scene:
        args.image = os.path.join(work, "scene.png")
        subprocess.run([args.make_scene, args.image], check=True)
    if not args.image or not os.path.exists(args.image):
        shutil.rmtree(work, ignore_errors=True)
        skip(f"no image {args.image} (the shared data sets are not beside the checkout)")

    saved = os.path.join(work, "adapted.mmp")
    server = subprocess.Popen([args.mmp, "serve", "--model", args.model, "--images", args.image, "--port", "0",
                               "--out", saved, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
            raise AssertionError(f"mmp serve did not start: {server.stderr.read()}")
        print(f"page at {url}")

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

        if args.screenshot:
            # the page as a user leaves it: the plan after teaching, the demonstration, hover read-out
            sx, sy = js("return mmp.screenOf(arguments[0], arguments[1])", size[0] * 0.5, size[1] * 0.5)
            ActionChains(browser).move_to_element_with_offset(canvas, int(sx - box[0] / 2), int(sy - box[1] / 2)).perform()
            time.sleep(0.3)
            browser.save_screenshot(args.screenshot)
            print(f"wrote {args.screenshot}")
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
