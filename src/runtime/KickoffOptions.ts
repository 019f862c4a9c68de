/** The options every kickoff (crew, flow, agent) accepts besides its inputs. */
export interface KickoffOptions {
  /** Resume from this checkpoint: an id (looked up in the instance's checkpoint location) or a JSON checkpoint file. */
  fromCheckpoint?: string;
}
