"""The kubelet's side of placement: pod admission on the node (``pkg/kubelet/lifecycle``, ``pkg/kubelet/allocation``).

Modules: :mod:`~refimpl.kubelet.admission` (``canAdmitPod`` with the predicate admit handler) and
:mod:`~refimpl.kubelet.kubelet` (one node's kubelet: the pods it admitted, ``HandlePodAdditions``).
"""
