"""Reference implementation of the kube-scheduler cache: typed, efficient, structured like kube-scheduler.

It refines ``spec`` and imports from it only the API object types (``spec.objects``, ``spec.resources``,
``spec.quantities``).
"""
