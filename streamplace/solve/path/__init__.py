"""Path tasks over bi-modal links (Asaduzzaman and Maheswaran): exact enumeration, the
heuristics and the relaxed multi-stage lower bound."""
