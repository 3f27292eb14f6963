#!/usr/bin/env bash
# test-deps.sh: make test-deps. What the tests need, from Debian where
# missing: kubectl ($KUBECTL, the independent client the tests prove
# compatibility with), tmux (crdlab learn driven through a terminal), the
# linter of shell scripts (make lint) and chromium (the web UI's browser test, which
# skips, saying so, where chromium cannot be installed; a CJK font shows
# the seed's Chinese terms in its screenshot).
set -euo pipefail
updated=
install() { # install PACKAGE...: apt-get install, after one apt-get update
	[[ -n $updated ]] || apt-get update -qq
	updated=1
	apt-get install -y -qq "$@"
}
if ! command -v "${KUBECTL:-kubectl}" >/dev/null 2>&1; then
	echo "installing Debian's kubectl"
	install kubectl || install kubernetes-client
fi
for tool in tmux shellcheck; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "installing Debian's $tool"
		install "$tool"
	fi
done
if ! command -v chromium >/dev/null 2>&1; then
	echo "installing Debian's chromium (the web UI's browser test)"
	install chromium fonts-wqy-zenhei || echo "chromium could not be installed: TestWebUIInABrowser will skip"
fi
