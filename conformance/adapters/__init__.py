"""Adapters that put implementations behind the conformance protocol: the reference implementation's, in-process
(:mod:`~conformance.adapters.refimpl_adapter`) and over stdin/stdout (:mod:`~conformance.adapters.stdio_main`)."""
