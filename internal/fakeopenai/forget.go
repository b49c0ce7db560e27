package fakeopenai

// ForgetRequests empties the log Requests returns (Count keeps counting).
// A long test calls it so that the log does not grow with every request.
func (s *Server) ForgetRequests() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}
