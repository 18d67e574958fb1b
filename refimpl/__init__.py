"""Reference implementation of the kube-scheduler cache: typed, efficient, structured like kube-scheduler.

It refines ``spec`` and imports from it only the API object types and shared vocabulary (``spec.objects``,
``spec.quantities``, ``spec.frozenmap``, ``spec.errors``, ``spec.versions``); ``tests/test_project.py`` enforces it.
"""
