#!/usr/bin/env python3
"""Runs the /v1/fs/* routes against the reference 0.1.11 daemon and ours side by side
and compares status, content type and body of every successful answer (timestamps
are compared by presence only: both are RFC 3339).

Usage: fs_side_by_side.py REFERENCE_BIN OURS_BIN
(see ../../../shared/reference/README.md for building the reference). Exits 1 on a difference.
"""
import io, json, os, subprocess, sys, tarfile, tempfile, time, urllib.error, urllib.request


def call(port, method, path, body=None, content_type=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    if content_type:
        request.add_header("content-type", content_type)
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, answer.headers.get("content-type"), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("content-type"), error.read()


def archive():
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, content in [("a/x.txt", b"xx"), ("b.txt", b"b")]:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return data.getvalue()


def steps(root):
    move = json.dumps({"from": f"{root}/f.txt", "to": f"{root}/m/g.txt"}).encode()
    return [
        ("PUT", f"/v1/fs/file?path={root}/f.txt", b"hello", None),
        ("GET", f"/v1/fs/file?path={root}/f.txt", None, None),
        ("GET", f"/v1/fs/stat?path={root}/f.txt", None, None),
        ("POST", f"/v1/fs/mkdir?path={root}/m", None, None),
        ("GET", f"/v1/fs/entries?path={root}", None, None),
        ("POST", "/v1/fs/move", move, "application/json"),
        ("POST", f"/v1/fs/upload-batch?path={root}/up", archive(), "application/x-tar"),
        ("DELETE", f"/v1/fs/entry?path={root}/up&recursive=true", None, None),
    ]


def comparable(body, root):
    text = body.decode().replace(root, "<root>")
    try:
        value = json.loads(text)
    except ValueError:
        return text

    def strip(v):
        if isinstance(v, list):
            return sorted((strip(x) for x in v), key=json.dumps)
        if isinstance(v, dict):
            return {k: ("<time>" if k == "modified" else strip(x)) for k, x in v.items()}
        return v

    return strip(value)


def main():
    reference, ours = sys.argv[1], sys.argv[2]
    home = tempfile.mkdtemp()
    env = dict(os.environ, HOME=home)
    daemons = [
        subprocess.Popen([reference, "server", "--no-telemetry", "--no-token", "--port", "2499"], env=env),
        subprocess.Popen([ours, "server", "--no-token", "--port", "2498", "--data-dir", f"{home}/.data"], env=env),
    ]
    try:
        time.sleep(2)
        answers = {}
        for port, tag in [(2499, "reference"), (2498, "ours")]:
            root = f"{home}/{tag}"
            rows = []
            for method, path, body, ct in steps(root):
                status, content_type, answer = call(port, method, path, body, ct)
                rows.append((method, path.split("?")[0], status, content_type, comparable(answer, root)))
            answers[tag] = rows
        differences = 0
        for theirs, mine in zip(answers["reference"], answers["ours"]):
            same = theirs[2:] == mine[2:]
            differences += not same
            print("same" if same else "DIFFERENT", theirs[0], theirs[1], theirs[2])
            if not same:
                print("  reference:", theirs[2:])
                print("  ours:     ", mine[2:])
        return 1 if differences else 0
    finally:
        for daemon in daemons:
            daemon.terminate()


if __name__ == "__main__":
    sys.exit(main())
