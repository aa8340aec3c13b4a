node --version
# The native binary arrives through the platform optional dependency; the adapter runs it directly.
test -x node_modules/opencode-linux-x64/bin/opencode
node_modules/opencode-linux-x64/bin/opencode --version
