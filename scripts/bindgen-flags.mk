# SPDX-License-Identifier: GPL-2.0
# The C flags our own bindgen passes (Kbuild, clients/rust/Kbuild) hand to
# libclang: the kernel's c_flags, as its rust/Makefile hands them for its own
# bindings. A clang-built kernel's flags go as they are. A GCC-built one's
# (Debian's stock kernels, say) lose the GCC-only options libclang rejects
# and get the target set, the same list and target as rust/Makefile's
# bindgen_skip_c_flags and BINDGEN_TARGET (7.3), and -w since GCC's warning
# options are not clang's.
bp_bindgen_skip_c_flags := -mno-fp-ret-in-387 -mpreferred-stack-boundary=% \
	-mskip-rax-setup -mgeneral-regs-only -msign-return-address=% \
	-mindirect-branch=thunk-extern -mindirect-branch-register \
	-mfunction-return=thunk-extern -mrecord-mcount -mabi=lp64 \
	-mindirect-branch-cs-prefix -mstack-protector-guard% -mtraceback=no \
	-mno-pointers-to-nested-functions -mno-string \
	-mno-strict-align -mstrict-align -mdirect-extern-access \
	-mexplicit-relocs -mno-check-zero-division \
	-fconserve-stack -falign-jumps=% -falign-loops=% \
	-femit-struct-debug-baseonly -fno-ipa-cp-clone -fno-ipa-sra \
	-fno-partial-inlining -fplugin-arg-arm_ssp_per_task_plugin-% \
	-fno-reorder-blocks -fno-allow-store-data-races -fasan-shadow-offset=% \
	-fzero-call-used-regs=% -fno-stack-clash-protection \
	-fno-inline-functions-called-once -fsanitize=bounds-strict \
	-fstrict-flex-arrays=% -fmin-function-alignment=% \
	-fzero-init-padding-bits=% -mno-fdpic \
	-fdiagnostics-show-context -fdiagnostics-show-context=% \
	--param=% --param asan-% -fno-isolate-erroneous-paths-dereference \
	-ffixed-r2 -mmultiple -mno-readonly-in-sdata

ifdef CONFIG_CC_IS_CLANG
bp_bindgen_c_flags = $(c_flags)
else
bp_bindgen_c_flags = $(filter-out $(bp_bindgen_skip_c_flags),$(c_flags)) \
	--target=x86_64-linux-gnu
endif
