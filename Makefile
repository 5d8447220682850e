# SPDX-License-Identifier: GPL-2.0
# batchprobe: developer entry points. The kernel build itself reads Kbuild.
#
#   make demo     install, build, boot QEMU, show the module working
#   make check    host tests + QEMU selftests on 6.12's test kernel and Debian's 7.3 image,
#                 all but the programs marked `# speed: slow`; ends with
#                 "N passed, N failed, N skipped" and names what it did not run
#   make check-all every program on every flavor (the debug kernels' KASAN, lockdep,
#                 kmemleak too), and the race programs again with 4 vCPUs
#   make bench    every method side by side in one boot per flavor: raw data
#                 kept under bench/results/DATE-HHMM-FLAVOR/, BENCHMARKS.md republished
#   make bench-stock  the BPF peers at 1000, 10000 and every function (cold and
#                 warm), and the seed, on Debian's own image (needs root)
#   make bench-publish  BENCHMARKS.md and docs/bench/*.svg from bench/results/ alone
#   make check-times-save  the last check's times (out/check-times.txt) kept under
#                 bench/results/DATE-HHMM-check-FLAVORS/, BENCHMARKS.md republished
#   make bundle   one self-contained archive (QEMU, kernels, initramfs, runner)
#                 that runs check/demo/bench on any x86-64 Linux host, KVM or TCG
#   make bundle-test  run that archive in a chroot holding nothing else
#   make bench-report FROM=DIR  the report of a bundle's `./run bench` results
#   make profile-direct  where a direct set's attach spends its time
#   make profile-records where a trace record's time goes (sampled under TCG)
#   make profile-create  where a set's create and enable spend their time (sampled)
#   make module   build batchprobe.ko (KDIR=/path/to/6.12+ tree to use your own)
#   make clients  build the in-kernel API's sample clients (clients/c, clients/rust)
#   make clippy   build with CLIPPY=1
#   make kernel   build (or reuse) the cached test kernel
#   make stock-kernel  Debian's own 7.3 image (GCC, rustc 1.85): a trixie chroot
#                 prepares the matching tree, builds the modules; QEMU boots
#                 the image, runs the selftests and the demo (scripts/stock-kernel.sh)
#   make deps     install the Debian packages and bindgen-cli
#   make sign     sign batchprobe.ko (and built clients) with BP_SIGN_KEY and
#                 BP_SIGN_CERT, by the kernel's scripts/sign-file
#   make install  (signed first if BP_SIGN_KEY is set) into
#                 /lib/modules/RELEASE/updates/ and depmod, for modprobe; the
#                 header and Module.symvers under PREFIX (/usr/local);
#                 INSTALL_MOD_STRIP=1 strips the installed copy's debug info
#                 (then signs it), as kbuild's modules_install
#   make uninstall  remove what install put there

KDIR ?=
export KDIR

.PHONY: all demo check check-all bench bench-stock bundle bundle-test bench-report bench-publish check-times-save profile-direct profile-records profile-create record-fixtures bench-cli cli module clients clippy kernel stock-kernel deps sign install uninstall host-test fmt clean

all: module

demo:
	@scripts/demo.sh

check:
	@scripts/check.sh

check-all:
	@BP_CHECK_ALL=1 scripts/check.sh

bench:
	@scripts/bench.sh

# What the batchprobe command costs over the module's interface
# (bench/results/DATE-cli-FLAVOR/).
bench-cli:
	@scripts/bench-cli.sh

# The module's files as each flavor writes them, for the batchprobe
# command's host tests (tools/batchprobe/tests/data/).
record-fixtures:
	@scripts/record-fixtures.sh

# About an hour under TCG: not part of `make bench`'s default.
bench-stock:
	@BP_BENCH_FLAVORS=stock-7.3 BP_BENCH_ONLY="seed peers" BP_BENCH_SIZES=256 \
	    BP_BENCH_RUNS=3 BP_BENCH_DIRECT_SIZES=256 BP_BENCH_DIRECT_RUNS=3 \
	    BP_BENCH_PEER_ENTRY_SIZES="1000 10000 all" \
	    BP_BENCH_PEER_EXIT_SIZES="1000 10000" scripts/bench.sh

bundle:
	@scripts/bundle.sh

bundle-test:
	@scripts/test-bundle.sh

bench-publish:
	@scripts/bench-publish.sh

check-times-save:
	@scripts/check-times-save.sh

bench-report:
	@test -n "$(FROM)" || { echo "usage: make bench-report FROM=DIR (a ./run bench results directory)"; exit 2; }
	@scripts/bench-report.sh "$(FROM)"

profile-direct:
	@scripts/profile-direct.sh

profile-records:
	@scripts/profile-records.sh

profile-create:
	@BP_PROFILE_MODE=profile-create scripts/profile-records.sh

# The batchprobe command (tools/batchprobe), static.
cli:
	@scripts/build-cli.sh

module:
	@scripts/build-module.sh

clients: module
	@scripts/build-clients.sh

clippy:
	@scripts/build-module.sh CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver
	cd tools/batchprobe && cargo clippy --all-targets -- -D warnings

kernel:
	@scripts/build-kernel.sh

stock-kernel:
	@scripts/stock-kernel.sh

deps:
	@scripts/install-deps.sh

sign:
	@scripts/install-module.sh sign

install:
	@scripts/install-module.sh install

uninstall:
	@scripts/install-module.sh uninstall

host-test:
	cd tests && cargo test
	cd tests && cargo test --features lints --test 'lint_*'
	cd tools/benchreport && cargo test
	cd tools/batchprobe && cargo test

fmt:
	rustfmt --edition 2021 --config-path .rustfmt.toml src/batchprobe.rs
	rustfmt --edition 2021 --config-path .rustfmt.toml clients/rust/bpclient_rs.rs
	cd tests && cargo fmt
	cd tools/benchreport && cargo fmt
	cd tools/batchprobe && cargo fmt

clean:
	rm -rf out tests/target tools/benchreport/target
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '.*.d' -o -name '*.rmeta' \) -delete
	rm -f modules.order Module.symvers rust/bindings_generated.rs \
		clients/*/modules.order clients/*/Module.symvers clients/rust/batchprobe_bindings.rs
