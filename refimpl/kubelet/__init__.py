"""The kubelet's side of placement: pod admission on the node (``pkg/kubelet/lifecycle``, ``pkg/kubelet/allocation``).

Modules: :mod:`~refimpl.kubelet.admission` (``canAdmitPod`` with the predicate admit handler). The kubelets of
simulated nodes, which call it, are :mod:`refimpl.simulator.kubelets`.
"""
