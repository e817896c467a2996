"""Branch and price on the Dantzig-Wolfe master of the Constr program: master LP,
pricing, branching rules, the search over nodes, the incumbent its workers share, and the
runner that starts it beside the compact solve."""
