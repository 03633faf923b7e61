export const routes = ["/users"];
